/**
 * jepa's own general.file_type codes, where llama.cpp's LLAMA_FTYPE table has none (its codes stay below 1000).
 *
 * q8_row: every 2-D matmul weight N (ne = [k, rows]) is stored as ggml i8, same shape, with a companion tensor
 * `N.scale` (f32, [rows]) right after it: w[r][j] = scale[r] · q[r][j], q in [-127, 127],
 * scale[r] = max_j |w[r][j]| / 127 (0 for a row of zeros).
 */
export const FILE_TYPE_Q8_ROW = 1000;

/** The suffix of an i8 matmul weight's per-row scale tensor. */
export const ROW_SCALE_SUFFIX = '.scale';

/** The name of the per-row scale tensor of the i8 matmul weight `weight`. */
export function rowScaleName(weight: string): string {
  return `${weight}${ROW_SCALE_SUFFIX}`;
}
