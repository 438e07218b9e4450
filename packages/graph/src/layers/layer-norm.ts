// LayerNorm with the weights `prefix.weight` and `prefix.bias`: one node on the CPU, norm · w + b elsewhere.
import type { Context, Tensor } from '@jepa/native';
import type { Weights } from '../weights.js';

export function layerNorm(ctx: Context, x: Tensor, w: Weights, prefix: string, eps: number): Tensor {
  const [weight, bias] = [w.get(`${prefix}.weight`), w.get(`${prefix}.bias`)];
  if (w.onCpu && x.isContiguous) return ctx.layerNormCpu(x, weight, bias, eps);
  return ctx.add(ctx.mul(ctx.norm(x, eps), weight), bias);
}
