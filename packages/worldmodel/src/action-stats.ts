// Dataset statistics of a model's actions (z-scoring): raw actions to the model's units and back.
// They are not part of the weights; the caller gives them.

export interface ActionStats {
  mean: ArrayLike<number>;
  std: ArrayLike<number>;
}

/** Raw actions [..., A] -> the model's normalised actions: (x - mean) / std per action dimension. */
export function normalizeActions(raw: Float32Array, stats: ActionStats): Float32Array {
  const A = stats.mean.length;
  return Float32Array.from(raw, (v, i) => (v - stats.mean[i % A]!) / stats.std[i % A]!);
}

/** The model's actions [..., A] -> raw units: x · std + mean per action dimension. */
export function denormalizeActions(actions: Float32Array, stats: ActionStats): Float32Array {
  const A = stats.mean.length;
  return Float32Array.from(actions, (v, i) => v * stats.std[i % A]! + stats.mean[i % A]!);
}
