// Views of attention heads inside a packed projection ([parts · heads · headDim, tokens, batch],
// contiguous: q, k, v or k, v side by side along channels), and the layout attention takes.
import type { Context, Tensor } from '@jepa/native';

export interface HeadLayout {
  headDim: number;
  nHead: number;
  tokens: number;
  batch: number;
}

/** Part `which` of a packed projection as [headDim, heads, tokens, batch] (the layout RoPE rotates). */
export function packedPart(ctx: Context, packed: Tensor, which: number, l: HeadLayout): Tensor {
  const width = l.headDim * l.nHead;
  return ctx.view(packed, [l.headDim, l.nHead, l.tokens, l.batch], [l.headDim * 4, packed.nb[1], packed.nb[1] * l.tokens], which * width * 4);
}

/** [headDim, heads, tokens, batch] -> [headDim, tokens, heads, batch], the layout of attention's q, k, v. */
export function headsMajor(ctx: Context, t: Tensor): Tensor {
  return ctx.permute(t, 0, 2, 1, 3);
}
