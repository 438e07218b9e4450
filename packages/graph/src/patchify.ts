// The patch "convolution" as a host-side rearrangement: every token's pixels laid out in the
// flattening order of the PyTorch Conv2d/Conv3d weight (C, t, kh, kw), so one mul_mat does the rest.

export interface PatchGeometry {
  channels: number;
  frames: number;
  height: number;
  width: number;
  patch: number;
  tubelet: number;
}

export function patchGrid(g: PatchGeometry): { t: number; h: number; w: number } {
  return { t: Math.floor(g.frames / g.tubelet), h: Math.floor(g.height / g.patch), w: Math.floor(g.width / g.patch) };
}

/**
 * One item ([C, T, H, W] float32, T = 1 for images) to [tokens, C·tubelet·P·P] row-major.
 * Pixels beyond the last whole patch or tubelet are dropped, as a strided convolution drops them.
 */
export function patchify(pixels: Float32Array, g: PatchGeometry, out?: Float32Array): Float32Array {
  const { channels: C, frames: T, height: H, width: W, patch: P, tubelet: TT } = g;
  const grid = patchGrid(g);
  const rowLen = C * TT * P * P;
  const n = grid.t * grid.h * grid.w;
  const dst = out ?? new Float32Array(n * rowLen);
  let o = 0;
  for (let gt = 0; gt < grid.t; gt++)
    for (let gh = 0; gh < grid.h; gh++)
      for (let gw = 0; gw < grid.w; gw++)
        for (let c = 0; c < C; c++)
          for (let dt = 0; dt < TT; dt++) {
            const plane = (c * T + gt * TT + dt) * H;
            for (let ky = 0; ky < P; ky++) {
              const src = (plane + gh * P + ky) * W + gw * P;
              for (let kx = 0; kx < P; kx++) dst[o++] = pixels[src + kx]!;
            }
          }
  return dst;
}
