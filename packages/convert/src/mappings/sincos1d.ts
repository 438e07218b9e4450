// VideoMAE's fixed position table (modeling_videomae.get_sinusoid_encoding_table): one sinusoid over
// the token index p, channel j at angle p / 10000^(2·⌊j/2⌋ / D), sin on even j and cos on odd j.
// Computed in float64 as numpy does, then stored as float32 (torch.FloatTensor).

/** The [rows, dim] table, row-major (row p is token p): the bytes of a ggml [dim, rows] tensor. */
export function sincos1dTable(rows: number, dim: number): Float32Array {
  const out = new Float32Array(rows * dim);
  for (let j = 0; j < dim; j++) {
    const denom = 10000 ** ((2 * Math.floor(j / 2)) / dim);
    const odd = j % 2 === 1;
    for (let p = 0; p < rows; p++) {
      const angle = p / denom;
      out[p * dim + j] = odd ? Math.cos(angle) : Math.sin(angle);
    }
  }
  return out;
}
