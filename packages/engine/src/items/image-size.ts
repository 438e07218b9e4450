// A request's `size`: the input size to resize every image and frame to instead of the model's
// recipe (no crop), for encoders that run any patch grid (DINOv3 at 512 or 768).
export interface ImageSize {
  height: number;
  width: number;
}

/** `512` (square) or `[height, width]`, as the schema's sizeField admits it; undefined stays undefined. */
export function imageSize(size: number | readonly [number, number] | undefined): ImageSize | undefined {
  if (size === undefined) return undefined;
  return typeof size === 'number' ? { height: size, width: size } : { height: size[0], width: size[1] };
}
