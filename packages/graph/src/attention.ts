// Multi-head attention over q, k, v laid out [headDim, tokens, heads, batch]: flash attention by
// default, or the naive mul_mat + soft_max_ext path (fully F32; scores are N² per head). Flash is
// ggml_flash_attn_ext, except with F32 K/V in a graph on the CPU, where this engine's kernel does
// the same arithmetic in f32 at twice the speed (JEPA_FLASH_CPU=0 keeps ggml's).
import { buildInfo, type Context, type Tensor } from '@jepa/native';
import { flashCpuEnabled } from './runtime-options.js';

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
  if (!t) maskByKey.set(mask, (t = ctx.cont(ctx.transpose(mask))));
  return t;
}

/** Returns the attention output as [headDim · heads, tokens, batch], contiguous. */
export function attention(ctx: Context, q: Tensor, k: Tensor, v: Tensor, o: AttentionOptions): Tensor {
  const [hd, nQ, heads, batch] = q.ne;
  if (o.flash) {
    const kk = o.kvType === GGML_F32 ? k : ctx.cast(k, o.kvType);
    const vv = o.kvType === GGML_F32 ? v : ctx.cast(v, o.kvType);
    const own = o.cpu && o.kvType === GGML_F32 && v.ne[0] % 16 === 0 && flashCpuEnabled() && buildInfo().flashAttnCpu !== null;
    const out = own
      ? ctx.flashAttnCpu(q, kk, vv, o.mask && keyMajor(ctx, o.mask), o.scale)
      : ctx.flashAttnExt(q, kk, vv, o.mask, o.scale); // [hd, heads, nQ, batch]
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
