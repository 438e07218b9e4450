// A ViT-shaped graph built straight on the binding with random weights: patch tokens in, L pre-LN
// blocks (flash attention, GELU-erf MLP) out. It measures what building graphs from JS costs; it
// is a shape probe, not a model (no positions, no checkpoint).
import { createContext, type Backend, type Context, type Graph, type Tensor } from '@jepa/native';

export interface VitShape {
  tokens: number;
  dim: number;
  heads: number;
  ffn: number;
  layers: number;
  /** ggml weight type id (0 = f32, 1 = f16). */
  weightType: number;
}

export const VIT_B_224: VitShape = { tokens: 197, dim: 768, heads: 12, ffn: 3072, layers: 12, weightType: 0 };

interface Block {
  ln1w: Tensor;
  ln1b: Tensor;
  qkv: Tensor;
  qkvb: Tensor;
  proj: Tensor;
  projb: Tensor;
  ln2w: Tensor;
  ln2b: Tensor;
  fc1: Tensor;
  fc1b: Tensor;
  fc2: Tensor;
  fc2b: Tensor;
}

export interface VitWeights {
  ctx: Context;
  blocks: Block[];
  normW: Tensor;
  normB: Tensor;
}

export function createVitWeights(shape: VitShape, backend: Backend): VitWeights {
  const { dim, ffn, weightType: wt } = shape;
  const ctx = createContext(shape.layers * 12 + 4);
  const blocks: Block[] = [];
  for (let l = 0; l < shape.layers; l++) {
    blocks.push({
      ln1w: ctx.newTensor(0, [dim]),
      ln1b: ctx.newTensor(0, [dim]),
      qkv: ctx.newTensor(wt, [dim, 3 * dim]),
      qkvb: ctx.newTensor(0, [3 * dim]),
      proj: ctx.newTensor(wt, [dim, dim]),
      projb: ctx.newTensor(0, [dim]),
      ln2w: ctx.newTensor(0, [dim]),
      ln2b: ctx.newTensor(0, [dim]),
      fc1: ctx.newTensor(wt, [dim, ffn]),
      fc1b: ctx.newTensor(0, [ffn]),
      fc2: ctx.newTensor(wt, [ffn, dim]),
      fc2b: ctx.newTensor(0, [dim]),
    });
  }
  const normW = ctx.newTensor(0, [dim]);
  const normB = ctx.newTensor(0, [dim]);
  const buffer = ctx.allocate(backend);
  // Small pseudo-random bytes: the values do not matter for timing, only that they are finite.
  const fill = (t: Tensor) => {
    const n = t.nbytes / 2;
    const bits = new Uint16Array(n);
    for (let i = 0; i < n; i++) bits[i] = t.type === 0 ? (i & 1 ? 0x3c00 : (i * 2654435761) & 0x03ff) : 0x2000 | ((i * 2654435761) & 0x03ff);
    t.set(bits);
  };
  for (const b of blocks) for (const t of Object.values(b)) fill(t);
  fill(normW);
  fill(normB);
  void buffer;
  return { ctx, blocks, normW, normB };
}

export interface VitGraph {
  ctx: Context;
  graph: Graph;
  input: Tensor;
  output: Tensor;
}

export function buildVitGraph(shape: VitShape, w: VitWeights, batch = 1): VitGraph {
  const { tokens: n, dim, heads } = shape;
  const hd = dim / heads;
  const ctx = createContext(shape.layers * 40 + 16);
  const input = ctx.newTensor(0, [dim, n, batch]);
  input.setInput();
  const layerNorm = (x: Tensor, g: Tensor, b: Tensor) => ctx.add(ctx.mul(ctx.norm(x, 1e-6), g), b);
  let x = input;
  for (const blk of w.blocks) {
    const h = layerNorm(x, blk.ln1w, blk.ln1b);
    const qkv = ctx.add(ctx.mulMat(blk.qkv, h), blk.qkvb); // [3D, n, B]
    const row = 4 * 3 * dim;
    const head = (offset: number) => ctx.permute(ctx.view(qkv, [hd, heads, n, batch], [hd * 4, row, row * n], offset), 0, 2, 1, 3); // [hd, n, H, B]
    const q = head(0);
    const k = head(dim * 4);
    const v = head(2 * dim * 4);
    const att = ctx.flashAttnExt(q, k, v, null, 1 / Math.sqrt(hd)); // [hd, H, n, B]
    const merged = ctx.reshape(att, [dim, n, batch]);
    x = ctx.add(x, ctx.add(ctx.mulMat(blk.proj, merged), blk.projb));
    const m = layerNorm(x, blk.ln2w, blk.ln2b);
    const f = ctx.geluErf(ctx.add(ctx.mulMat(blk.fc1, m), blk.fc1b));
    x = ctx.add(x, ctx.add(ctx.mulMat(blk.fc2, f), blk.fc2b));
  }
  const output = layerNorm(x, w.normW, w.normB);
  output.setOutput();
  return { ctx, graph: ctx.buildGraph([output]), input, output };
}
