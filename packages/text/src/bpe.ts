/**
 * CLIP's BPE on one pre-token (already byte characters): the last character carries '</w>', then the
 * adjacent pair with the lowest merge rank is merged everywhere, left to right, until no pair has a
 * rank. Returns the pieces; the two special tokens are kept whole.
 */
export function bpe(token: string, ranks: ReadonlyMap<string, number>, special: ReadonlySet<string>): string[] {
  if (special.has(token)) return [token];
  const chars = Array.from(token);
  let word = [...chars.slice(0, -1), `${chars[chars.length - 1]}</w>`];
  while (word.length > 1) {
    let best = -1;
    let bestRank = Number.POSITIVE_INFINITY;
    for (let i = 0; i < word.length - 1; i++) {
      const rank = ranks.get(pairKey(word[i], word[i + 1]));
      if (rank !== undefined && rank < bestRank) {
        bestRank = rank;
        best = i;
      }
    }
    if (best < 0) break;
    const first = word[best];
    const second = word[best + 1];
    const merged: string[] = [];
    for (let i = 0; i < word.length; ) {
      if (i < word.length - 1 && word[i] === first && word[i + 1] === second) {
        merged.push(first + second);
        i += 2;
      } else {
        merged.push(word[i]);
        i += 1;
      }
    }
    word = merged;
  }
  return word;
}

/** The key of a merge in the rank table: the two pieces with a space between (no piece holds one). */
export function pairKey(first: string, second: string): string {
  return `${first} ${second}`;
}
