// Resizing a square table of patch positions to another grid, as the HF ViT families do when an
// input is not the trained size: torch's bicubic interpolate (align_corners=False), either the plain
// kernel (a = -0.75, clamped taps) or the antialiased one (a = -0.5, support widened when shrinking,
// weights normalised) that Dinov2WithRegisters asks for. Computed in float64, stored as float32.
// The dinov2 repository's own models (torch.hub files) pass torch a scale factor (grid + offset) / side
// instead of the grid, and torch then maps outputs back to inputs by that scale, not by side / grid.

/** torch's area_pixel_compute_scale (align_corners=False): 1 / scale_factor when one is given, else in / out. */
function inputPerOutput(inSize: number, outSize: number, offset: number): number {
  return offset === 0 ? inSize / outSize : 1 / ((outSize + offset) / inSize);
}

type Taps = { start: number; weights: number[] }[];

function cubic(x: number, a: number): number {
  const t = Math.abs(x);
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((t - 5) * t + 8) * t * a - 4 * a;
  return 0;
}

/** torch upsample_bicubic2d taps along one axis: 4 per output, indices clamped at the edges. */
function plainTaps(inSize: number, outSize: number, scale: number): { index: number[]; weight: number[] }[] {
  const out: { index: number[]; weight: number[] }[] = [];
  for (let i = 0; i < outSize; i++) {
    const real = (i + 0.5) * scale - 0.5;
    const i0 = Math.floor(real);
    const t = real - i0;
    const weight = [cubic(t + 1, -0.75), cubic(t, -0.75), cubic(1 - t, -0.75), cubic(2 - t, -0.75)];
    const index = [-1, 0, 1, 2].map((d) => Math.min(Math.max(i0 + d, 0), inSize - 1));
    out.push({ index, weight });
  }
  return out;
}

/** torch's antialiased bicubic taps (the PIL-style separable filter). */
function antialiasTaps(inSize: number, outSize: number, scale: number): Taps {
  const support = 2 * Math.max(scale, 1);
  const invScale = scale >= 1 ? 1 / scale : 1;
  const taps: Taps = [];
  for (let i = 0; i < outSize; i++) {
    const center = scale * (i + 0.5);
    const start = Math.max(Math.trunc(center - support + 0.5), 0);
    const end = Math.min(Math.trunc(center + support + 0.5), inSize);
    const weights: number[] = [];
    for (let j = start; j < end; j++) weights.push(cubic((j - center + 0.5) * invScale, -0.5));
    const total = weights.reduce((s, w) => s + w, 0);
    taps.push({ start, weights: weights.map((w) => (total !== 0 ? w / total : 0)) });
  }
  return taps;
}

function axisTaps(inSize: number, outSize: number, antialias: boolean, offset: number): { index: number[]; weight: number[] }[] {
  const scale = inputPerOutput(inSize, outSize, offset);
  if (!antialias) return plainTaps(inSize, outSize, scale);
  return antialiasTaps(inSize, outSize, scale).map((t) => ({ index: t.weights.map((_, k) => t.start + k), weight: t.weights }));
}

/**
 * table: [rows, dim] row-major, `prefix` rows (CLS) first, then side x side patch rows.
 * Returns [prefix + outH * outW, dim] with the prefix rows copied. `offset`: jepa.enc.pos_interp_offset.
 */
export function interpolatePositions(
  table: Float32Array,
  dim: number,
  prefix: number,
  outH: number,
  outW: number,
  antialias: boolean,
  offset = 0,
): Float32Array {
  const side = Math.round(Math.sqrt(table.length / dim - prefix));
  if (side * side !== table.length / dim - prefix) throw new RangeError('the position table is not a square grid');
  const out = new Float32Array((prefix + outH * outW) * dim);
  out.set(table.subarray(0, prefix * dim));
  const rowTaps = axisTaps(side, outH, antialias, offset);
  const colTaps = axisTaps(side, outW, antialias, offset);
  // first along w (side x side -> side x outW), then along h
  const tmp = new Float64Array(side * outW * dim);
  for (let y = 0; y < side; y++)
    for (let x = 0; x < outW; x++) {
      const { index, weight } = colTaps[x]!;
      const dst = (y * outW + x) * dim;
      for (let k = 0; k < index.length; k++) {
        const src = (prefix + y * side + index[k]!) * dim;
        const wk = weight[k]!;
        for (let d = 0; d < dim; d++) tmp[dst + d] += wk * table[src + d]!;
      }
    }
  for (let y = 0; y < outH; y++) {
    const { index, weight } = rowTaps[y]!;
    for (let x = 0; x < outW; x++) {
      const dst = (prefix + y * outW + x) * dim;
      for (let d = 0; d < dim; d++) {
        let s = 0;
        for (let k = 0; k < index.length; k++) s += weight[k]! * tmp[(index[k]! * outW + x) * dim + d]!;
        out[dst + d] = s;
      }
    }
  }
  return out;
}
