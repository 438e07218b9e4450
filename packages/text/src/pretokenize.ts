/**
 * CLIP's pre-token pattern: the two special tokens, the English contractions, runs of letters, single
 * digits, and runs of anything else but whitespace. CLIP compiles it case-insensitive (`regex.IGNORECASE`),
 * which matters even on lower-cased text: "'ſ" (long s) folds to "'s". `\s` is Python regex's, the
 * Unicode White_Space property (JavaScript's own `\s` differs: it takes U+FEFF, and not U+0085).
 */
const PRE_TOKEN = /<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|\p{L}+|\p{N}|[^\p{White_Space}\p{L}\p{N}]+/giu;

/** The pre-tokens of cleaned text, in order (`regex.findall` with CLIP's pattern). */
export function preTokens(text: string): string[] {
  return text.match(PRE_TOKEN) ?? [];
}
