// Multi-head attention over q, k, v laid out [headDim, tokens, heads, batch]: flash attention by
// default, or the naive mul_mat + soft_max_ext path (fully F32; scores are N² per head). Flash is
// ggml_flash_attn_ext, except in a graph on the CPU, where this engine's kernel does the arithmetic
// of ggml's CPU kernel at two to three times its speed (JEPA_FLASH_CPU=0 keeps ggml's): F32 K/V
// from 16 queries up, F16 K/V from 64 up, where ggml rounds K and V to f16 and does the rest in f32
// as well (below that it also rounds q and the accumulator, which this kernel does not copy).
import { buildInfo, type Context, type Tensor } from '@jepa/native';
import { flashCpuEnabled } from '../runtime-options.js';

export const GGML_F32 = 0;
export const GGML_F16 = 1;

export interface AttentionOptions {
  scale: number;
  /** Additive F16 [nKV, nQ] mask shared by every head and item, or null. */
  mask: Tensor | null;
  flash: boolean;
  /** K/V storage type on the flash path (F32 or F16). */
  kvType: number;
  /** F32 accumulation for the naive path's products (GPU). */
  precF32?: boolean;
  /** The graph runs on the CPU backend (Weights.onCpu). */
  cpu?: boolean;
}

/** The CPU kernel reads the mask key-major; one transposed copy per mask serves every layer of a graph. */
const maskByKey = new WeakMap<Tensor, Tensor>();
function keyMajor(ctx: Context, mask: Tensor): Tensor {
  let t = maskByKey.get(mask);
  if (!t) {
    t = ctx.cont(ctx.transpose(mask));
    maskByKey.set(mask, t);
  }
  return t;
}

/** Returns the attention output as [headDim · heads, tokens, batch], contiguous. */
export function attention(ctx: Context, q: Tensor, k: Tensor, v: Tensor, o: AttentionOptions): Tensor {
  const [hd, nQ, heads, batch] = q.ne;
  if (o.flash) {
    const kvF16 = o.kvType === GGML_F16;
    // The kernel works on 16 queries per vector: shorter sequences (LeWM's few steps) stay on ggml's row kernel.
    const kvOk = (o.kvType === GGML_F32 && nQ >= 16) || (kvF16 && nQ >= 64);
    const own = o.cpu && kvOk && v.ne[0] % 16 === 0 && flashCpuEnabled() && buildInfo().flashAttnCpu !== null;
    if (own) {
      const out = ctx.flashAttnCpu(q, k, v, o.mask && keyMajor(ctx, o.mask), o.scale, kvF16); // [hd, heads, nQ, batch]
      return ctx.reshape(out, [hd * heads, nQ, batch]);
    }
    const kk = kvF16 ? ctx.cast(k, o.kvType) : k;
    const vv = kvF16 ? ctx.cast(v, o.kvType) : v;
    const out = ctx.flashAttnExt(q, kk, vv, o.mask, o.scale); // [hd, heads, nQ, batch]
    return ctx.reshape(out, [hd * heads, nQ, batch]);
  }
  const scores = ctx.mulMat(k, q); // [nKV, nQ, heads, batch]
  if (o.precF32) scores.setPrecF32();
  const probs = ctx.softMaxExt(scores, o.mask, o.scale);
  const vt = ctx.cont(ctx.permute(v, 1, 0, 2, 3)); // [nKV, hd, heads, batch]
  const out = ctx.mulMat(vt, probs); // [hd, nQ, heads, batch]
  if (o.precF32) out.setPrecF32();
  return ctx.cont(ctx.permute(out, 0, 2, 1, 3), [hd * heads, nQ, batch]);
}
