// LeVJEPA's block-causal attention mask: a patch query attends a patch key iff the key's temporal
// slot is not later than the query's; prefix (CLS) rows are open, prefix columns are closed to
// patch queries. Additive F16 [N, N] (row = query), zeros and -inf, as flash_attn_ext wants it.

const F16_ZERO = 0x0000;
const F16_NEG_INF = 0xfc00;

export interface BlockCausalLayout {
  /** Prefix tokens (CLS) ahead of the patch tokens. */
  prefix: number;
  /** Temporal slots and patch tokens per slot. */
  slots: number;
  tokensPerSlot: number;
}

export function blockCausalOpen(layout: BlockCausalLayout, query: number, key: number): boolean {
  const { prefix, tokensPerSlot } = layout;
  if (query < prefix) return true;
  if (key < prefix) return false;
  return Math.floor((query - prefix) / tokensPerSlot) >= Math.floor((key - prefix) / tokensPerSlot);
}

/** Bytes of the mask for a layout: the one term of the encoder graph that grows with N^2. */
export function blockCausalMaskBytes(layout: BlockCausalLayout): number {
  const n = layout.prefix + layout.slots * layout.tokensPerSlot;
  return n * n * 2;
}

export function blockCausalMaskF16(layout: BlockCausalLayout): Uint16Array {
  const n = layout.prefix + layout.slots * layout.tokensPerSlot;
  const mask = new Uint16Array(n * n);
  for (let q = 0; q < n; q++) {
    const row = q * n;
    for (let k = 0; k < n; k++) mask[row + k] = blockCausalOpen(layout, q, k) ? F16_ZERO : F16_NEG_INF;
  }
  return mask;
}
