// The one sizing rule of every graph's context. A ggml context holds the metadata of a fixed number
// of tensors (no data: memory comes when the graph is allocated); this says how many.
import { createContext, type Context } from '@jepa/native';
import { splitAttentionTensors } from './attention.js';

/**
 * Tensors one pre-LN transformer block may create, in its largest form (the GPU form's RoPE and
 * naive attention, layer scale, hierarchy norm), with room to spare.
 */
export const BLOCK_TENSORS = 48;
/** An AdaLN-zero block (LeWM): the pre-LN block's nodes plus its modulation. */
export const ADALN_BLOCK_TENSORS = 64;
/** Tensors a graph creates outside its blocks: inputs, embeddings, prefix tokens, norms, outputs. */
export const OUTSIDE_BLOCKS_TENSORS = 128;

/**
 * The context of a graph of `blocks` blocks of at most `perBlock` tensors each, each block's attention
 * over `queries` queries (on the CPU a long one is split into blocks of queries: layers/attention.ts).
 */
export function graphContext(blocks: number, perBlock = BLOCK_TENSORS, queries = 0): Context {
  return createContext(blocks * (perBlock + splitAttentionTensors(queries)) + OUTSIDE_BLOCKS_TENSORS);
}
