// How far a JPEG may be shrunk while libjpeg decodes it (DCT scaling), for fast decode.

/** The shrinks libjpeg's scaled IDCT decodes at, largest first: 1/8, 1/4, 1/2 and full size. */
export const DCT_SHRINKS = [8, 4, 2, 1] as const;

export type DctShrink = (typeof DCT_SHRINKS)[number];

/**
 * Pillow's rule (JpegImagePlugin.draft, Pillow 9.4): with scale = min(W // w, H // h), the largest
 * s of 8, 4, 2, 1 with s <= scale. Then s·w <= W and s·h <= H, so the scaled raster is still at
 * least w × h on both sides and the resize after it only ever downsamples.
 */
export function dctShrink(width: number, height: number, atLeast: { width: number; height: number }): DctShrink {
  const scale = Math.min(Math.floor(width / atLeast.width), Math.floor(height / atLeast.height));
  return DCT_SHRINKS.find((s) => scale >= s) ?? 1;
}

/**
 * The raster libvips's jpegload gives at shrink s: floor(W / s) × floor(H / s). libjpeg's own
 * output (and Pillow's draft) is the ceiling; libvips drops the last, partial column and row.
 */
export function dctScaledSize(width: number, height: number, shrink: DctShrink): { width: number; height: number } {
  return { width: Math.floor(width / shrink), height: Math.floor(height / shrink) };
}
