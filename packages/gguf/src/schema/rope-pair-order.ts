/**
 * How a dinov3 file stores the q and k rows of each head: in pair order, out[2m] = in[m], out[2m + 1] =
 * in[m + headDim / 2], so the reference's rotate-half RoPE (element m turns with m + headDim / 2) is the
 * graph's rotation of adjacent pairs. The same permutation on q and k leaves every q·k product unchanged.
 */
export function ropePairOrder(headDim: number): number[] {
  const half = headDim / 2;
  return Array.from({ length: headDim }, (_, r) => (r % 2 === 0 ? r / 2 : half + (r - 1) / 2));
}
