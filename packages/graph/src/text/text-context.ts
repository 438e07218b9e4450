// Runs dino.txt's text tower: token rows in, one aligned vector per row. Rows are cut after their end token (the
// argmax id, as Meta pools) and padded to a multiple of 8 within the context, so texts of similar length share a graph.
import { blockCausalMaskF16 } from '../block-causal-mask.js';
import { GraphError } from '../errors.js';
import { Deadline, kvTypeFor, runGraph } from '../graph-runner.js';
import type { ModelHandle } from '../model-handle.js';
import { ModelContext } from '../model-context.js';
import { buildTextGraph, type TextGraph } from './text-graph.js';

export interface TextContextOptions {
  threads?: number;
  /** Naive mul_mat + soft_max_ext attention. */
  noFlash?: boolean;
  kv?: 'f16' | 'f32';
  /** Rows per graph, at most (default 32). */
  maxBatch?: number;
  /** A compute deadline for each embed() call, in ms. */
  timeoutMs?: number;
}

const ROW_STEP = 8;
const DEFAULT_BATCH = 32;

/** The position of a row's end token: its first largest id (dinov3 TextTower's `argmax` pooling). */
export function endPosition(row: ArrayLike<number>): number {
  let at = 0;
  for (let i = 1; i < row.length; i++) if (row[i]! > row[at]!) at = i;
  return at;
}

export class TextContext extends ModelContext<TextGraph> {
  readonly #options: TextContextOptions;

  constructor(model: ModelHandle, options: TextContextOptions = {}) {
    if (!model.spec.text) throw new GraphError('NO_TEXT', `${model.spec.name} (${model.spec.family}) has no text tower; text needs a dino.txt model`);
    super(model, options.threads);
    this.#options = options;
  }

  /** One vector per token row, in order: [out_dim] each, not normalised. A row holds ids (start … end, then padding). */
  embed(rows: readonly ArrayLike<number>[], options: { timeoutMs?: number } = {}): Promise<Float32Array[]> {
    return this.runner.serial(() => this.#embed(rows, options));
  }

  async #embed(rows: readonly ArrayLike<number>[], options: { timeoutMs?: number }): Promise<Float32Array[]> {
    const t = this.model.spec.text!;
    rows.forEach((row, r) => {
      if (row.length < 1 || row.length > t.context)
        throw new GraphError('BAD_INPUT', `token row ${r} has ${row.length} ids; the text tower takes 1 to ${t.context}`);
      for (let i = 0; i < row.length; i++) {
        const id = row[i]!;
        if (!Number.isInteger(id) || id < 0 || id >= t.vocabSize)
          throw new GraphError('BAD_INPUT', `token row ${r} holds id ${id} at ${i}; the vocabulary has ids 0 to ${t.vocabSize - 1}`);
      }
    });
    const deadline = Deadline.of(options.timeoutMs ?? this.#options.timeoutMs, 'text tower');
    const maxBatch = this.#options.maxBatch ?? DEFAULT_BATCH;
    const out: Float32Array[] = [];
    for (let start = 0; start < rows.length; start += maxBatch) {
      const chunk = rows.slice(start, start + maxBatch);
      const ends = chunk.map(endPosition);
      const n = Math.min(t.context, Math.ceil((Math.max(...ends) + 1) / ROW_STEP) * ROW_STEP);
      const b = chunk.length;
      const g = this.#graph(n, b);
      const ids = new Int32Array(n * b);
      chunk.forEach((row, i) => {
        for (let j = 0; j <= ends[i]!; j++) ids[i * n + j] = row[j]!;
      });
      g.ids.set(ids);
      g.endRows.set(Int32Array.from(ends, (e, i) => i * n + e));
      g.mask.set(blockCausalMaskF16({ prefix: 0, slots: n, tokensPerSlot: 1 }));
      if (deadline) deadline.total += g.graph.nodeCount;
      await runGraph(g.graph, this.runner.backend, deadline);
      const vectors = g.vectors.get(new Float32Array(t.outDim * b));
      for (let i = 0; i < b; i++) out.push(vectors.slice(i * t.outDim, (i + 1) * t.outDim));
    }
    return out;
  }

  #graph(n: number, batch: number): TextGraph {
    const precF32 = !this.runner.backend.isCpu && this.model.runtime.gpuPrecF32;
    return this.runner.place(
      this.runner.graph(
        `${n}x${batch}`,
        (flash) =>
          buildTextGraph(this.model.spec.text!, this.model.weights, n, batch, { flash, kvType: kvTypeFor(this.model, this.#options.kv), precF32 }),
        !this.#options.noFlash,
      ),
    );
  }
}
