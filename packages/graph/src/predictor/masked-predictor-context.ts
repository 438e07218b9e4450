// Runs a masked predictor (V-JEPA 2 / 2.1 RoPE, I-JEPA / V-JEPA v1 position table): context tokens
// at given ids, predictions at target ids.
import type { MaskedPredictorHparams, ModelSpec, RopeLayout } from '@jepa/gguf';
import { GraphError } from '../errors.js';
import type { EncodeOutput } from '../encoder-context.js';
import { Deadline, kvTypeFor, runGraph } from '../graph-runner.js';
import { ModelContext } from '../model-context.js';
import type { ModelHandle } from '../model-handle.js';
import { ropeTables, signedSin } from '../rope3d.js';
import { buildMaskedPredictorGraph, type MaskedPredictorGraph } from './masked-predictor-graph.js';

export interface PredictorContextOptions {
  threads?: number;
  noFlash?: boolean;
  kv?: 'f16' | 'f32';
  /** Debugging and negative controls only: the RoPE layout to use instead of the file's. */
  ropeLayout?: RopeLayout;
  /** A compute deadline for each predict() call, in ms (see EncoderContextOptions.timeoutMs). */
  timeoutMs?: number;
}

export interface PredictInput {
  /** The encoder tokens of one whole clip, [nTokens, dim] row-major, patch tokens only, t-major ids. */
  tokens: Float32Array;
  dim: number;
  /** Ids of the context tokens (rows of `tokens` fed to the predictor) and of the tokens to predict. */
  contextIds: ArrayLike<number>;
  targetIds: ArrayLike<number>;
  /**
   * Which mask token the targets take (modulo the number of tokens). The reference's default is 1;
   * in the released V-JEPA 2 checkpoints only mask_tokens[0] is non-zero, so index 1 feeds zeros.
   */
  maskIndex?: number;
  /** V-JEPA 2.1: the modality vector added to every token (default video). */
  modality?: 'video' | 'image';
  /** V-JEPA 2.1 with pred.proj_context: also return the projected context rows. */
  returnContext?: boolean;
}

export interface PredictOutput {
  /** [nTarget, outDim]. */
  targets: Float32Array;
  /** [nContext, outDim] when asked for. */
  context: Float32Array | null;
  outDim: number;
}

/**
 * Activation bytes of one predictor graph: the block's widest intermediates per token, plus the
 * naive path's F32 score matrices (N² per head, twice). GPUs take the naive path (no flash kernel
 * for head width 32).
 */
export function maskedPredictorBytes(p: MaskedPredictorHparams, tokens: number, flash: boolean): number {
  const activations = 4 * tokens * (8 * p.embedDim + 2 * p.ffnDim + 2 * p.embedInDim + p.outDim);
  const scores = flash ? 0 : 2 * 4 * tokens * tokens * p.nHead;
  return activations + scores;
}

/** The patch tokens of item `i` of an encoder output, as a predictor input's `tokens` and `dim`. */
export function predictorTokens(out: EncodeOutput, i = 0): { tokens: Float32Array; dim: number } {
  return { tokens: out.item(i).subarray(out.prefix * out.dim), dim: out.dim };
}

/**
 * The rows of a context-only encoding (EncodeOptions.keep = contextIds, one row per id in that order)
 * placed at their ids of the whole input's token table, which is how the predictor reads its context.
 * Rows of other ids stay zero: the predictor never reads them.
 */
export function contextOnlyTokens(
  spec: ModelSpec,
  shape: readonly number[],
  out: EncodeOutput,
  contextIds: ArrayLike<number>,
): { tokens: Float32Array; dim: number } {
  const e = spec.enc;
  const frames = shape.length === 5 ? shape[2]! : 1;
  const tubelet = frames === 1 && e.imgTubeletSize !== null ? e.imgTubeletSize : e.tubeletSize;
  const [h, w] = shape.slice(-2) as [number, number];
  const nTokens = Math.max(1, Math.floor(frames / tubelet)) * Math.floor(h / e.patchSize) * Math.floor(w / e.patchSize);
  if (out.batch !== 1 || out.prefix !== 0 || out.nTokens !== contextIds.length)
    throw new GraphError('BAD_INPUT', `a context-only encoding of ${contextIds.length} ids was expected, got ${out.batch} x ${out.nTokens} tokens`);
  const tokens = new Float32Array(nTokens * out.dim);
  for (let r = 0; r < contextIds.length; r++) tokens.set(out.tokens.subarray(r * out.dim, (r + 1) * out.dim), contextIds[r]! * out.dim);
  return { tokens, dim: out.dim };
}

/**
 * Refuses an input (shape [..., H, W]) whose patch grid is not the predictor's: token ids decode on the
 * trained grid (RoPE) or index the trained table, and neither reference resizes them.
 */
export function checkPredictorInputSize(spec: ModelSpec, shape: readonly number[]): void {
  const p = spec.pred;
  if (p?.kind !== 'masked') throw new GraphError('NO_PREDICTOR', `${spec.name} has no masked predictor`);
  const [h, w] = shape.slice(-2) as [number, number];
  const side = p.gridSize * spec.enc.patchSize;
  if (h !== side || w !== side)
    throw new GraphError(
      'OFF_GRID',
      `the predictor's positions are those of the trained ${side}x${side} input (a ${p.gridSize}x${p.gridSize} patch grid), not ${h}x${w}; it does not interpolate them`,
    );
}

export class MaskedPredictorContext extends ModelContext<MaskedPredictorGraph> {
  readonly #p: MaskedPredictorHparams;
  readonly #options: PredictorContextOptions;

  constructor(model: ModelHandle, options: PredictorContextOptions = {}) {
    const p = model.spec.pred;
    if (p?.kind !== 'masked') throw new GraphError('NO_PREDICTOR', `${model.spec.name} has no masked predictor`);
    super(model, options.threads);
    this.#p = p;
    this.#options = options;
  }

  predict(input: PredictInput): Promise<PredictOutput> {
    return this.runner.serial(() => this.#predict(input));
  }

  async #predict(input: PredictInput): Promise<PredictOutput> {
    const deadline = Deadline.of(this.#options.timeoutMs, 'predictor');
    const p = this.#p;
    const { tokens, dim } = input;
    if (dim !== p.embedInDim) throw new GraphError('BAD_INPUT', `the predictor takes ${p.embedInDim}-wide tokens, these are ${dim} wide`);
    const plane = p.gridSize * p.gridSize;
    const nTokens = tokens.length / dim;
    if (!Number.isInteger(nTokens) || nTokens < 1 || nTokens % plane !== 0)
      throw new GraphError('BAD_INPUT', `${tokens.length / dim} tokens are not whole ${p.gridSize}x${p.gridSize} frames of the predictor grid`);
    // The reference indexes its fixed table by token id and never resizes it: fewer frames read its
    // leading rows (t-major), more than it holds have no position.
    if (p.pos === 'table' && nTokens > p.posRows)
      throw new GraphError(
        'OFF_GRID',
        `${nTokens} tokens are more than the ${p.posRows} positions of the predictor's table (${p.posRows / plane}x${p.gridSize}x${p.gridSize}); its reference does not interpolate it`,
      );
    const slots = nTokens / plane;
    const ctxIds = Array.from(input.contextIds);
    const tgtIds = Array.from(input.targetIds);
    if (ctxIds.length < 1 || tgtIds.length < 1) throw new GraphError('BAD_INPUT', 'the predictor needs at least one context and one target id');
    for (const [what, ids] of [
      ['context', ctxIds],
      ['target', tgtIds],
    ] as const)
      for (const id of ids)
        if (!Number.isInteger(id) || id < 0 || id >= nTokens)
          throw new GraphError(
            'OFF_GRID',
            `${what} token id ${id} is off the predictor grid (${slots}x${p.gridSize}x${p.gridSize}, ids 0..${nTokens - 1})`,
            { part: what },
          );
    const maskIndex = input.maskIndex ?? 1;
    if (!Number.isInteger(maskIndex)) throw new GraphError('BAD_INPUT', `mask index ${maskIndex} is not an integer`);
    const maskRow = ((maskIndex % p.nMaskTokens) + p.nMaskTokens) % p.nMaskTokens;
    const withContext = input.returnContext === true;
    if (withContext && !p.projContext) throw new GraphError('BAD_INPUT', `${this.model.spec.name} has no pred.proj_context`);
    const modality = input.modality ?? 'video';

    const nc = ctxIds.length;
    const nt = tgtIds.length;
    const backend = this.runner.backend;
    const flash = !this.#options.noFlash && this.model.weights.onCpu;
    const need = maskedPredictorBytes(p, nc + nt, flash);
    if (need > this.model.runtime.maxGraphBytes)
      throw new GraphError(
        'OVER_BUDGET',
        `the predictor over ${nc} + ${nt} tokens needs about ${Math.ceil(need / 2 ** 20)} MiB of graph memory, over JEPA_MAX_GRAPH_MIB=${this.model.runtime.maxGraphBytes / 2 ** 20}`,
      );
    const g = this.runner.graph(`${nc}:${nt}:${modality}:${withContext}`, () =>
      buildMaskedPredictorGraph(
        p,
        this.model.weights,
        { nContext: nc, nTarget: nt, modality, withContext },
        {
          flash,
          kvType: kvTypeFor(this.model, this.#options.kv),
          precF32: !backend.isCpu && this.model.runtime.gpuPrecF32,
        },
      ),
    );

    const context = new Float32Array(nc * dim);
    for (const [r, id] of ctxIds.entries()) context.set(tokens.subarray(id * dim, (id + 1) * dim), r * dim);
    const ids = [...ctxIds, ...tgtIds];
    g.context.set(context);
    g.maskRows.set(new Int32Array(nt).fill(maskRow));
    if (p.rope) {
      // a stable sort by id: the reference's argsort order for distinct ids, context first on ties
      const order = Array.from({ length: ids.length }, (_, i) => i).sort((a, b) => ids[a]! - ids[b]! || a - b);
      const sortedPos = new Int32Array(ids.length);
      for (const [pos, src] of order.entries()) sortedPos[src] = pos;
      const tables = ropeTables({
        headDim: p.headDim,
        layout: this.#options.ropeLayout ?? p.rope.layout,
        grid: { t: slots, h: p.gridSize, w: p.gridSize },
        ids: order.map((i) => ids[i]!),
        theta: p.rope.theta,
      });
      g.order?.set(Int32Array.from(order));
      g.targetRows.set(sortedPos.subarray(nc));
      g.contextRows?.set(sortedPos.subarray(0, nc));
      g.ropeCos?.set(tables.cos);
      g.ropeSin?.set(signedSin(tables));
    } else {
      g.contextPos?.set(Int32Array.from(ctxIds));
      g.targetPos?.set(Int32Array.from(tgtIds));
      g.targetRows.set(Int32Array.from(tgtIds, (_, r) => nc + r));
      g.contextRows?.set(Int32Array.from(ctxIds, (_, r) => r));
    }
    if (deadline) deadline.total = g.graph.nodeCount;
    await runGraph(g.graph, backend, deadline);
    return {
      targets: g.targets.get(new Float32Array(nt * p.outDim)),
      context: g.contextOut ? g.contextOut.get(new Float32Array(nc * p.outDim)) : null,
      outDim: p.outDim,
    };
  }
}
