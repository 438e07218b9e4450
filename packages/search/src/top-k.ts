// Exact cosine over unit vectors: a dot product per row, the best k kept in a small sorted list.

/** Unit length (the cosine of unit vectors is their dot product); a zero vector stays zero. */
export function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const out = new Float32Array(v.length);
  if (s === 0) return out;
  const r = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * r;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The k best (id, score) seen, best first; ties keep the lower id first. */
export class TopK {
  readonly ids: number[] = [];
  readonly scores: number[] = [];
  constructor(readonly k: number) {}

  offer(id: number, score: number): void {
    const n = this.ids.length;
    if (n === this.k && !(score > this.scores[n - 1]! || (score === this.scores[n - 1]! && id < this.ids[n - 1]!))) return;
    let at = n;
    while (at > 0 && (this.scores[at - 1]! < score || (this.scores[at - 1]! === score && this.ids[at - 1]! > id))) at--;
    this.ids.splice(at, 0, id);
    this.scores.splice(at, 0, score);
    if (this.ids.length > this.k) {
      this.ids.pop();
      this.scores.pop();
    }
  }
}
