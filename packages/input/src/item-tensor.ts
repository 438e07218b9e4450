/** One input as a model takes it: [C, H, W] (a still) or [C, T, H, W] (a clip), float32, C order. */
export interface ItemTensor {
  data: Float32Array;
  shape: number[];
}
