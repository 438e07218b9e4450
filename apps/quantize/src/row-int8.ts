// q8_row: each output row of a matmul weight as int8 with one f32 scale (the contract in
// @jepa/gguf's schema/file-types.ts): scale = max |w| / 127, q = round-half-even(w / scale) in
// [-127, 127], all in f32 arithmetic so that any implementation of the formula gets these bits.

/** Round half to even, as the native kernels' nearest-even rounding does (vcvtps2dq, lrintf). */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

export interface RowInt8 {
  /** [rows][k], row-major: q[r * k + j]. */
  q: Int8Array;
  /** [rows]: w[r][j] ≈ scale[r] · q[r][j]. */
  scale: Float32Array;
}

/**
 * Quantizes `rows` rows of `k` f32 values each. A row of zeros gets scale 0 (and q 0); a non-finite value is
 * refused, naming `name` and the row.
 */
export function quantizeRowsInt8(values: Float32Array, k: number, rows: number, name = 'tensor'): RowInt8 {
  if (values.length !== k * rows) throw new Error(`${name}: ${values.length} values are not ${rows} rows of ${k}`);
  const q = new Int8Array(k * rows);
  const scale = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    const row = values.subarray(r * k, (r + 1) * k);
    let amax = 0;
    for (let j = 0; j < k; j++) {
      const a = Math.abs(row[j]!);
      if (!Number.isFinite(a)) throw new Error(`${name}: row ${r} holds ${row[j]}; q8_row needs finite weights`);
      if (a > amax) amax = a;
    }
    const s = Math.fround(amax / 127);
    const inv = s === 0 ? 0 : Math.fround(1 / s);
    scale[r] = s;
    const out = q.subarray(r * k, (r + 1) * k);
    for (let j = 0; j < k; j++) out[j] = Math.min(127, Math.max(-127, roundHalfEven(Math.fround(row[j]! * inv))));
  }
  return { q, scale };
}
