// One item's encoder output → the PCA map of its patch features as a PNG (the rule is in
// @jepa/graph's pca.ts), and the network's own view of the input as a PNG to lay it over.
// POST /v1/features, MCP and `jepa features --pca` all call featureMap, so they write the same bytes.
import { deflateSync } from 'node:zlib';
import type { ModelSpec } from '@jepa/gguf';
import { type EncodeOutput, patchGrid, patchPcaMap } from '@jepa/graph';
import { pngChunk, rgbPngHeader } from '@jepa/preprocess';

export interface FeatureMap {
  /** The PNG's size: the pixels the patch grid covers (the network input when its sides are multiples of the patch). */
  width: number;
  height: number;
  /** The patch grid: t time slices (averaged into one) of h × w tokens. */
  grid: { t: number; h: number; w: number };
  /** 8-bit RGB PNG of the map. */
  png: Buffer;
  /** 8-bit RGB PNG of the network input (frame 0 of a clip), de-normalised, over the same pixels. */
  view: Buffer;
  /** Each component's share of the variance of the patch features. */
  explained: [number, number, number];
  /** The time the PCA, the upsampling and both PNGs took. */
  ms: number;
}

/** The patch grid of an input tensor [C, H, W] or [C, T, H, W] (no batch), as the encoder cuts it. */
export function tensorGrid(spec: ModelSpec, shape: readonly number[]): { t: number; h: number; w: number } {
  const e = spec.enc;
  const frames = shape.length === 4 ? shape[1]! : 1;
  const tubelet = e.imgTubeletSize !== null && frames === 1 ? e.imgTubeletSize : e.tubeletSize;
  return patchGrid({
    channels: shape[0]!,
    frames,
    height: shape[shape.length - 2]!,
    width: shape[shape.length - 1]!,
    patch: e.patchSize,
    tubelet,
  });
}

/**
 * Item `index` of `out`, whose input tensor (without the batch) had `shape` and values `data`,
 * → its PCA map and view as PNGs.
 */
export function featureMap(spec: ModelSpec, out: EncodeOutput, shape: readonly number[], data: Float32Array, index = 0): FeatureMap {
  const t0 = performance.now();
  const grid = tensorGrid(spec, shape);
  const pca = patchPcaMap(out.item(index), out.nTokens, out.dim, out.prefix, grid, spec.enc.patchSize);
  const { width, height, rgb } = pca.map;
  const png = encodePng(rgb, width, height);
  const view = encodePng(viewPixels(spec, shape, data, width, height), width, height);
  return { width, height, grid, png, view, explained: pca.explained, ms: performance.now() - t0 };
}

/** The network input back in 8-bit RGB: (x·std + mean) / rescale, rounded and clamped; frame 0 of a clip. */
function viewPixels(spec: ModelSpec, shape: readonly number[], data: Float32Array, width: number, height: number): Uint8Array {
  const frames = shape.length === 4 ? shape[1]! : 1;
  const H = shape[shape.length - 2]!;
  const W = shape[shape.length - 1]!;
  const { mean, std, rescale } = spec.pre;
  const out = new Uint8Array(width * height * 3);
  for (let c = 0; c < 3; c++) {
    const plane = c * frames * H * W;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const v = (data[plane + y * W + x]! * std[c]! + mean[c]!) / rescale;
        out[(y * width + x) * 3 + c] = Math.min(255, Math.max(0, Math.round(v)));
      }
  }
  return out;
}

/** 8-bit RGB [height, width, 3] → PNG (filter 0 on every row, zlib at its default level): the same bytes for the same pixels. */
export function encodePng(rgb: Uint8Array, width: number, height: number): Buffer {
  const stride = width * 3;
  const raw = Buffer.alloc(height * (1 + stride));
  for (let y = 0; y < height; y++) raw.set(rgb.subarray(y * stride, (y + 1) * stride), y * (1 + stride) + 1);
  return Buffer.concat([rgbPngHeader(width, height), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}
