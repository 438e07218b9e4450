// Host-side cos/sin tables of DINOv3's 2-D rotary embedding (dinov3 layers/rope_position_encoding.py,
// transformers' DINOv3ViTRopePositionEmbedding), for the graph's pair rotation.
//
// A patch at row i, column j of an H x W grid sits at y = 2 (i + 0.5) / H - 1, x = 2 (j + 0.5) / W - 1: each
// axis divided by its own length ("separate"), so a non-square grid still spans [-1, 1] both ways. Periods are
// base^(2k / (headDim / 2)) for k < headDim / 4, angles 2π · coordinate / period, laid out as [y angles |
// x angles]. The reference rotates halves (x · cos + rotate_half(x) · sin, element m with m + headDim / 2);
// dinov3 files store each head's q and k rows in pair order (@jepa/gguf's ropePairOrder), so pair m
// takes angle m here, and the prefix tokens (CLS, registers) get identity rows.
import type { RopeTables } from './rope3d.js';

export interface Rope2dOptions {
  headDim: number;
  rows: number;
  cols: number;
  /** Leading tokens that are not rotated (CLS and registers). */
  prefix: number;
  /** The period base (DINOv3: 100). */
  theta: number;
}

export function rope2dTables(o: Rope2dOptions): RopeTables {
  const { headDim, rows, cols, prefix, theta } = o;
  if (headDim % 4 !== 0 || headDim < 4) throw new RangeError(`head width ${headDim} is not a positive multiple of 4`);
  const quarter = headDim / 4;
  const periods = Array.from({ length: quarter }, (_, k) => theta ** ((2 * k) / (headDim / 2)));
  const n = prefix + rows * cols;
  const cos = new Float32Array(n * headDim).fill(1);
  const sin = new Float32Array(n * headDim);
  for (let i = 0; i < rows; i++) {
    const y = (2 * (i + 0.5)) / rows - 1;
    for (let j = 0; j < cols; j++) {
      const x = (2 * (j + 0.5)) / cols - 1;
      const base = (prefix + i * cols + j) * headDim;
      for (let m = 0; m < 2 * quarter; m++) {
        const angle = (2 * Math.PI * (m < quarter ? y : x)) / periods[m % quarter]!;
        const c = Math.cos(angle);
        const s = Math.sin(angle);
        cos[base + 2 * m] = c;
        cos[base + 2 * m + 1] = c;
        sin[base + 2 * m] = s;
        sin[base + 2 * m + 1] = s;
      }
    }
  }
  return { cos, sin, rows: n, headDim };
}
