/** BatchNorm1d's default epsilon (LeWM's projector and pred_proj use the default). */
export const BATCHNORM_EPS = 1e-5;

/**
 * Linear(W [out, in], b) followed by eval-mode BatchNorm1d(γ, β, running mean μ, var σ²) as one Linear:
 * s = γ / √(σ² + eps); W' = s ⊙ W (row-wise); b' = (b − μ)·s + β. Returned in PyTorch's [out, in] C order.
 */
export function foldBatchNorm(
  weight: Float32Array,
  bias: Float32Array,
  gamma: Float32Array,
  beta: Float32Array,
  mean: Float32Array,
  variance: Float32Array,
  eps = BATCHNORM_EPS,
): { weight: Float32Array; bias: Float32Array } {
  const out = bias.length;
  const inDim = weight.length / out;
  const w = new Float32Array(weight.length);
  const b = new Float32Array(out);
  for (let o = 0; o < out; o++) {
    const s = gamma[o]! / Math.sqrt(variance[o]! + eps);
    for (let i = 0; i < inDim; i++) w[o * inDim + i] = weight[o * inDim + i]! * s;
    b[o] = (bias[o]! - mean[o]!) * s + beta[o]!;
  }
  return { weight: w, bias: b };
}
