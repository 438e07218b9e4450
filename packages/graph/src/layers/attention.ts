// Multi-head attention over q, k, v laid out [headDim, tokens, heads, batch]: flash attention by
// default, or the naive mul_mat + soft_max_ext path (fully F32; scores are N² per head). Flash is
// ggml_flash_attn_ext, except in a graph on the CPU, where this engine's kernel does the arithmetic
// of ggml's CPU kernel at two to three times its speed (JEPA_FLASH_CPU=0 keeps ggml's): F32 K/V
// from 16 queries up, F16 K/V from 64 up, where ggml rounds K and V to f16 and does the rest in f32
// as well (below that it also rounds q and the accumulator, which this kernel does not copy).
//
// On the CPU the compute deadline is checked between nodes, so one attention node must not hold the
// graph for long: where its work passes ATTENTION_NODE_WORK, flash attention runs as one node per
// block of queries (each query's softmax is over all keys either way, so the bits are the same) and
// the blocks' outputs are concatenated.
import { buildInfo, type Context, type Tensor } from '@jepa/native';

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
  /** This engine's CPU flash kernel may run there (Weights.flashCpu; JEPA_FLASH_CPU=0: ggml's). */
  cpuFlash?: boolean;
  /** On the CPU, the most multiply-adds one flash node may do (default ATTENTION_NODE_WORK). */
  maxNodeWork?: number;
}

/**
 * The most work one flash attention node does on the CPU before it is split, in multiply-adds of
 * `pairWork` (queries x keys x heads x batch pairs): a few seconds on one slow core, well under one on
 * several. A model of 65 541 tokens made a single node of 100 s, past any deadline. Each block pays the
 * kernel's preparation of K and V again (about the work of 280 queries), so blocks are kept large:
 * ViT-L's width at 4 096 tokens is two blocks, at 16 384 tokens sixteen of MIN_SPLIT_BLOCK queries.
 */
export const ATTENTION_NODE_WORK = 2 ** 34;
/**
 * The work of one (query, key, head) pair in multiply-adds: the score's hd and the value's width as the
 * kernel runs it (this engine's pads it to whole 16-float vectors), plus the softmax's exp and the
 * bookkeeping around them, which cost about 24 multiply-adds (fitted to 1-thread times of hd 2 to 96 at
 * 8 192 keys: 1.05 ns a pair at hd 2 and 16 heads, 3.7 at hd 64, 5.0 at hd 88). ggml's CPU kernel takes
 * about twenty times as long where a head's width is not whole 16-float vectors (hd 88: 1 417 ms against
 * 169 for 1 024 queries of 4 heads over 4 096 keys).
 */
export function pairWork(hd: number, dv: number, ownKernel: boolean): number {
  if (ownKernel) return hd + Math.ceil(dv / 16) * 16 + 24;
  return (hd % 16 === 0 && dv % 16 === 0 ? 1 : 20) * (hd + dv + 24);
}

/** Blocks are whole multiples of this many queries (the CPU kernel's F16 K/V threshold). */
const QUERY_STEP = 64;
/** A block never has fewer queries than this: smaller ones cost more in preparation than they save. */
const MIN_SPLIT_BLOCK = 1024;

/**
 * Tensors an attention of `nQ` queries may add to its graph's context when it is split: per block a view
 * of q and of the mask, the mask's key-major copy (a transpose and a copy), the node, its reshape and a
 * concat. An upper bound whatever the widths; 0 when it cannot split.
 */
export function splitAttentionTensors(nQ: number): number {
  return nQ < 2 * MIN_SPLIT_BLOCK ? 0 : 7 * Math.ceil(nQ / MIN_SPLIT_BLOCK);
}

/** [first query, count] of each block, so that each does at most `maxWork` where it can (one block when it fits). */
export function queryBlocks(nQ: number, workPerQuery: number, maxWork: number): [number, number][] {
  if (!(nQ * workPerQuery > maxWork) || nQ < 2 * MIN_SPLIT_BLOCK) return [[0, nQ]];
  const size = Math.max(MIN_SPLIT_BLOCK, Math.floor(maxWork / workPerQuery / QUERY_STEP) * QUERY_STEP);
  const blocks: [number, number][] = [];
  for (let start = 0; start < nQ; start += size) blocks.push([start, Math.min(size, nQ - start)]);
  // a short tail joins the block before it, so that every block has at least MIN_SPLIT_BLOCK queries
  const last = blocks[blocks.length - 1]!;
  if (blocks.length > 1 && last[1] < MIN_SPLIT_BLOCK) {
    blocks.pop();
    blocks[blocks.length - 1]![1] += last[1];
  }
  return blocks;
}

/** Rows [start, start + count) along dim 1 of t (q's queries, or the mask's), as a view. */
function rows(ctx: Context, t: Tensor, start: number, count: number): Tensor {
  return ctx.view(t, [t.ne[0], count, t.ne[2], t.ne[3]], [t.nb[1], t.nb[2], t.nb[3]], start * t.nb[1]);
}

/** The tensors concatenated along dim 1, as a balanced tree (each value is copied log2(n) times). */
function concatRows(ctx: Context, parts: Tensor[]): Tensor {
  if (parts.length === 1) return parts[0]!;
  const half = parts.length >> 1;
  return ctx.concat(concatRows(ctx, parts.slice(0, half)), concatRows(ctx, parts.slice(half)), 1);
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
    const dv = v.ne[0];
    // The kernel works on 16 queries per vector: shorter sequences (LeWM's few steps) stay on ggml's row
    // kernel. A split has blocks of at least MIN_SPLIT_BLOCK queries, so nQ decides.
    const kvOk = (o.kvType === GGML_F32 && nQ >= 16) || (kvF16 && nQ >= 64);
    const own = !!o.cpu && !!o.cpuFlash && kvOk && buildInfo().flashAttnCpu !== null;
    const blocks = o.cpu
      ? queryBlocks(nQ, k.ne[1] * pairWork(hd, dv, own) * heads * batch, o.maxNodeWork ?? ATTENTION_NODE_WORK)
      : [[0, nQ] as [number, number]];
    const kk = !own && kvF16 ? ctx.cast(k, o.kvType) : k;
    const vv = !own && kvF16 ? ctx.cast(v, o.kvType) : v;
    const parts = blocks.map(([start, count]) => {
      const whole = blocks.length === 1;
      const qb = whole ? q : rows(ctx, q, start, count);
      const mask = o.mask && (whole ? o.mask : rows(ctx, o.mask, start, count));
      const out = own
        ? ctx.flashAttnCpu(qb, k, v, mask && keyMajor(ctx, mask), o.scale, kvF16) // [dv, heads, count, batch]
        : ctx.flashAttnExt(qb, kk, vv, mask, o.scale);
      return ctx.reshape(out, [dv * heads, count, batch]);
    });
    return concatRows(ctx, parts);
  }
  const scores = ctx.mulMat(k, q); // [nKV, nQ, heads, batch]
  if (o.precF32) scores.setPrecF32();
  const probs = ctx.softMaxExt(scores, o.mask, o.scale);
  const vt = ctx.cont(ctx.permute(v, 1, 0, 2, 3)); // [nKV, hd, heads, batch]
  const out = ctx.mulMat(vt, probs); // [hd, nQ, heads, batch]
  if (o.precF32) out.setPrecF32();
  return ctx.cont(ctx.permute(out, 0, 2, 1, 3), [hd * heads, nQ, batch]);
}
