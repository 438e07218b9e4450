/**
 * Pillow 9.4's cmyk2rgb (libImaging/Convert.c): no colour management, each channel
 * CLIP8(nk - MULDIV255(c, nk)) with nk = 255 - k. `src` holds `bands` interleaved bytes per pixel
 * (C, M, Y, K first; a fifth alpha band is dropped as convert('RGB') drops it).
 */
export function cmykToRgb(src: Uint8Array, bands: number, pixels: number): Uint8Array {
  const out = new Uint8Array(pixels * 3);
  for (let p = 0, i = 0, o = 0; p < pixels; p++, i += bands, o += 3) {
    const nk = 255 - src[i + 3];
    for (let c = 0; c < 3; c++) {
      const t = src[i + c] * nk + 128;
      // nk - MULDIV255 is never negative or above 255, so CLIP8 has nothing to clip.
      out[o + c] = nk - (((t >> 8) + t) >> 8);
    }
  }
  return out;
}
