// The stages of one encoder run, for debugging a port against its reference stage by stage
// (jepa embed --dump-dir): the tokens the first block reads, each block's output, the final norm.
import type { Context, Tensor } from '@jepa/native';

/** One stage of one item: [tokens, dim] row-major, prefix tokens (CLS, registers) first. */
export interface EncoderStage {
  /** `patch-embed`, `block-00` … `block-NN`, `final-norm`. */
  name: string;
  tokens: number;
  dim: number;
  data: Float32Array;
}

/** The name of block `l`'s output stage, zero-padded to the width of the largest block index. */
export function blockStageName(l: number, blocks: number): string {
  return `block-${String(l).padStart(Math.max(2, String(blocks - 1).length), '0')}`;
}

/**
 * A copy of `x` kept as a graph output. The copy, not `x`, is marked: `x` may be a view, and the
 * allocator keeps a view's memory only through the tensor it views; the copy also leaves every node
 * on the encoder's own path as it was, so the final stage is the same bits as a run without stages.
 */
export function stageOutput(ctx: Context, x: Tensor, name: string): Tensor {
  const kept = ctx.cont(x);
  kept.name = `stage:${name}`;
  kept.setOutput();
  return kept;
}
