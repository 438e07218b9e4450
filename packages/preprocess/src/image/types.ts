/** An 8-bit RGB image, row-major, channels interleaved (HWC). */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}
