// The pixels of one item's feature map, from plain data alone (no model, no addon), so the same
// function runs on the caller's thread (`jepa features --pca`) and on the map worker (the engine's
// features operation): the PCA map and the network's view as PNGs.
import { deflateSync } from 'node:zlib';
import { patchPcaMap } from '@jepa/graph/pca';
import { pngChunk, rgbPngHeader } from '@jepa/preprocess';

/** What a map is made from: plain arrays and numbers, so it crosses to a worker as it is. */
export interface FeatureMapJob {
  /** One item's tokens [nTokens, dim], prefix first. */
  tokens: Float32Array;
  nTokens: number;
  dim: number;
  prefix: number;
  grid: { t: number; h: number; w: number };
  patch: number;
  /** The item's input tensor [C, H, W] or [C, T, H, W] (no batch) and its values. */
  shape: number[];
  data: Float32Array;
  pre: { mean: number[]; std: number[]; rescale: number; offset?: number };
}

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

export function renderFeatureMap(job: FeatureMapJob): FeatureMap {
  const t0 = performance.now();
  const pca = patchPcaMap(job.tokens, job.nTokens, job.dim, job.prefix, job.grid, job.patch);
  const { width, height, rgb } = pca.map;
  const png = encodePng(rgb, width, height);
  const view = encodePng(viewPixels(job, width, height), width, height);
  return { width, height, grid: job.grid, png, view, explained: pca.explained, ms: performance.now() - t0 };
}

/** The network input back in 8-bit RGB: (x·std + mean − offset) / rescale, rounded and clamped; frame 0 of a clip. */
function viewPixels(job: FeatureMapJob, width: number, height: number): Uint8Array {
  const { shape, data } = job;
  const frames = shape.length === 4 ? shape[1]! : 1;
  const H = shape[shape.length - 2]!;
  const W = shape[shape.length - 1]!;
  const { mean, std, rescale } = job.pre;
  const offset = job.pre.offset ?? 0;
  const out = new Uint8Array(width * height * 3);
  for (let c = 0; c < 3; c++) {
    const plane = c * frames * H * W;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const v = (data[plane + y * W + x]! * std[c]! + mean[c]! - offset) / rescale;
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
