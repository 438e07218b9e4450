// One item's encoder output → the PCA map of its patch features as a PNG (the rule is in
// @jepa/graph's pca.ts), and the network's own view of the input as a PNG to lay it over.
// POST /v1/features, MCP and `jepa features --pca` all render through renderFeatureMap, so they write
// the same bytes: the CLI on its own thread (featureMap), the engine on the map worker (featureMapOffThread).
import type { ModelSpec } from '@jepa/gguf';
import { type EncodeOutput, patchGrid } from '@jepa/graph';
import { type FeatureMap, type FeatureMapJob, renderFeatureMap } from './feature-map-render.js';
import { mapWorker } from './feature-map-thread.js';

export type { FeatureMap } from './feature-map-render.js';
export { encodePng } from './feature-map-render.js';

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

/** Item `index` of `out`, whose input tensor (without the batch) had `shape` and values `data`, as a job (copies of its arrays). */
export function featureMapJob(spec: ModelSpec, out: EncodeOutput, shape: readonly number[], data: Float32Array, index = 0): FeatureMapJob {
  const { mean, std, rescale } = spec.pre;
  return {
    tokens: out.item(index).slice(),
    nTokens: out.nTokens,
    dim: out.dim,
    prefix: out.prefix,
    grid: tensorGrid(spec, shape),
    patch: spec.enc.patchSize,
    shape: [...shape],
    data: data.slice(),
    pre: { mean: [...mean], std: [...std], rescale, offset: spec.pre.offset ?? 0 },
  };
}

/** Item `index` of `out` → its PCA map and view as PNGs, on this thread. */
export function featureMap(spec: ModelSpec, out: EncodeOutput, shape: readonly number[], data: Float32Array, index = 0): FeatureMap {
  return renderFeatureMap(featureMapJob(spec, out, shape, data, index));
}

/** The same map, rendered on the map worker: the caller's event loop stays free while the PCA runs. */
export function featureMapOffThread(
  spec: ModelSpec,
  out: EncodeOutput,
  shape: readonly number[],
  data: Float32Array,
  index = 0,
): Promise<FeatureMap> {
  // the job's arrays are its own copies: handed over, not copied again
  return mapWorker.render(featureMapJob(spec, out, shape, data, index), true);
}

/** renderFeatureMap on the map worker; with `transfer` the job's tokens and data are handed over (detached here), not copied. */
export function renderOffThread(job: FeatureMapJob, options: { transfer?: boolean } = {}): Promise<FeatureMap> {
  return mapWorker.render(job, options.transfer ?? false);
}
