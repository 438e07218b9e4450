// Applies host-built 3-D RoPE tables inside the graph: x·cos + swap(x)·sin', where swap exchanges
// the members of each pair (a roll over a length-2 axis) and sin' carries the rotation's sign.
import type { Context, Tensor } from '@jepa/native';

/**
 * x: [headDim, heads, tokens, batch] (contiguous or not); cos, sin: [headDim, 1, tokens, 1] F32.
 * Returns the rotated tensor, contiguous, same layout. onCpu: one node does it all.
 */
export function applyRope(ctx: Context, x: Tensor, cos: Tensor, signedSin: Tensor, onCpu = false): Tensor {
  if (onCpu) return ctx.ropePairsCpu(x, cos, signedSin);
  const xc = x.isContiguous ? x : ctx.cont(x);
  const [hd, heads, tokens, batch] = xc.ne;
  const pairs = ctx.reshape(xc, [2, (hd / 2) * heads, tokens, batch]);
  const swapped = ctx.reshape(ctx.roll(pairs, 1), [hd, heads, tokens, batch]);
  return ctx.add(ctx.mul(xc, cos), ctx.mul(swapped, signedSin));
}
