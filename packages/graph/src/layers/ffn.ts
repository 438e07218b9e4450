// The feed-forward layers: the two-layer MLP fc2(act(fc1 x)) (blocks, heads, LeWM's projector and
// action encoder) and the encoder block's MLP, which may be SwiGLU.
import type { Activation, FfnKind } from '@jepa/gguf';
import type { Context, Tensor } from '@jepa/native';
import type { Weights } from '../weights.js';
import { linear, type LinearThen } from './linear.js';

/** fc2(act(fc1 x)) with the weights `prefix.fc1` and `prefix.fc2`; `then` finishes fc2. */
export function mlp(ctx: Context, x: Tensor, w: Weights, prefix: string, act: Activation, precF32: boolean, then: LinearThen = {}): Tensor {
  return linear(ctx, linear(ctx, x, w, `${prefix}.fc1`, precF32, { act }), w, `${prefix}.fc2`, precF32, then);
}

/**
 * A block's MLP on ln2's output m: `blk.ffn.fc2(act(blk.ffn.fc1 m))`, or the SwiGLU w3(silu(x1) ⊙ x2)
 * with [x1; x2] = w12 m along channels (transformers' chunk(2) order). `then` finishes the last linear.
 */
export function blockFfn(
  ctx: Context,
  m: Tensor,
  w: Weights,
  blk: string,
  kind: FfnKind,
  act: Activation,
  precF32: boolean,
  then: LinearThen,
): Tensor {
  if (kind === 'mlp') return mlp(ctx, m, w, `${blk}.ffn`, act, precF32, then);
  const x12 = linear(ctx, m, w, `${blk}.ffn.w12`, precF32); // [2h, n, batch]
  return linear(ctx, ctx.swiglu(x12), w, `${blk}.ffn.w3`, precF32, then);
}
