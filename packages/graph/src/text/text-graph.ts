// dino.txt's text tower (dinov3 eval/text/text_transformer.py, text_tower.py) over `batch` token rows of `n` ids:
//   x = text.token_embd[ids] + text.pos_embd[:n]; causal pre-LN blocks (GELU MLP, qkv without bias, no layer scale);
//   the row of each text's end token (its argmax id: the largest), text.norm, text.proj (no bias): [out_dim].
// Attention is causal, so rows after a text's end token (another text's, padding) never reach its end row: texts of
// different lengths share a graph padded to the longest.
import { tensorNames, type TextHparams } from '@jepa/gguf';
import { typeByName, type Context, type Graph, type Tensor } from '@jepa/native';
import { graphContext } from '../layers/graph-budget.js';
import { graphInput, maskInput } from '../layers/graph-inputs.js';
import { layerNorm } from '../layers/layer-norm.js';
import { linear } from '../layers/linear.js';
import { vitBlock } from '../layers/vit-block.js';
import type { Weights } from '../weights.js';

export interface TextGraph {
  ctx: Context;
  graph: Graph;
  /** I32 [n · batch]: each text's ids, padded to n. */
  ids: Tensor;
  /** I32 [batch]: row i·n + (position of text i's end token). */
  endRows: Tensor;
  /** F16 [n, n] causal mask (0 on and below the diagonal, -inf above). */
  mask: Tensor;
  /** [out_dim, batch]. */
  vectors: Tensor;
}

export interface TextGraphOptions {
  flash: boolean;
  kvType: number;
  precF32: boolean;
}

export function buildTextGraph(t: TextHparams, w: Weights, n: number, batch: number, o: TextGraphOptions): TextGraph {
  const W = t.embedDim;
  const ctx = graphContext(t.nLayer, undefined, n);
  const i32 = typeByName('i32');
  const ids = graphInput(ctx, i32, [n * batch], 'text_ids');
  const endRows = graphInput(ctx, i32, [batch], 'text_end_rows');
  const mask = maskInput(ctx, n, n, 'causal_mask');
  const table = w.get(tensorNames.textTokenEmbd);
  const pos = w.get(tensorNames.textPosEmbd);
  let x = ctx.reshape(ctx.getRows(table, ids), [W, n, batch]);
  x = ctx.add(x, ctx.view(pos, [W, n], [pos.nb[1], pos.nb[1] * n, pos.nb[1] * n], 0));
  const block = {
    dim: W,
    nHead: t.nHead,
    lnEps: t.lnEps,
    act: t.act,
    ffn: 'mlp' as const,
    layerScale: false,
    rope: null,
    attn: { mask, flash: o.flash, kvType: o.kvType, precF32: o.precF32 },
    precF32: o.precF32,
  };
  for (let i = 0; i < t.nLayer; i++) x = vitBlock(ctx, x, w, tensorNames.textBlock(i), block);
  // ln_final is per row, so the end rows are taken first
  const ends = ctx.getRows(ctx.reshape(x, [W, n * batch]), endRows); // [W, batch]
  const vectors = linear(ctx, layerNorm(ctx, ends, w, tensorNames.textNorm, t.lnEps), w, tensorNames.textProj, o.precF32);
  vectors.name = 'text_vectors';
  vectors.setOutput();
  return { ctx, graph: ctx.buildGraph([vectors]), ids, endRows, mask, vectors };
}
