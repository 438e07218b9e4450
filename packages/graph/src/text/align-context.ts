// Runs dino.txt's vision head over encoder outputs: one aligned vector (concat(CLS, patch mean), 2·D) per item.
import type { EncodeOutput } from '../encoder-context.js';
import { GraphError } from '../errors.js';
import { Deadline, kvTypeFor, runGraph } from '../graph-runner.js';
import type { ModelHandle } from '../model-handle.js';
import { ModelContext } from '../model-context.js';
import { buildAlignGraph, type AlignGraph } from './align-graph.js';

export interface AlignContextOptions {
  threads?: number;
  noFlash?: boolean;
  kv?: 'f16' | 'f32';
  timeoutMs?: number;
}

export class AlignContext extends ModelContext<AlignGraph> {
  readonly #options: AlignContextOptions;

  constructor(model: ModelHandle, options: AlignContextOptions = {}) {
    if (!model.spec.text)
      throw new GraphError('NO_TEXT', `${model.spec.name} (${model.spec.family}) has no vision head; aligned vectors need a dino.txt model`);
    super(model, options.threads);
    this.#options = options;
  }

  /** [2·D] per item of the output, in order. The output must be the full encoder's (every token, final norm). */
  aligned(out: EncodeOutput, options: { timeoutMs?: number } = {}): Promise<Float32Array[]> {
    return this.runner.serial(async () => {
      const spec = this.model.spec;
      const e = spec.enc;
      if (out.dim !== e.embedDim || out.prefix !== e.nCls + e.nReg || out.nTokens <= out.prefix)
        throw new GraphError('BAD_INPUT', `the vision head takes the encoder's ${e.embedDim}-wide tokens with CLS, registers and patches`);
      const deadline = Deadline.of(options.timeoutMs ?? this.#options.timeoutMs, 'vision head');
      const precF32 = !this.runner.backend.isCpu && this.model.runtime.gpuPrecF32;
      const g = this.runner.place(
        this.runner.graph(
          `${out.nTokens}x${out.batch}`,
          (flash) =>
            buildAlignGraph(e, spec.text!, this.model.weights, out.nTokens, out.batch, {
              flash,
              kvType: kvTypeFor(this.model, this.#options.kv),
              precF32,
            }),
          !this.#options.noFlash,
        ),
      );
      if (deadline) deadline.total = g.graph.nodeCount;
      g.tokens.set(out.tokens);
      await runGraph(g.graph, this.runner.backend, deadline);
      const width = 2 * e.embedDim;
      const all = g.aligned.get(new Float32Array(width * out.batch));
      return Array.from({ length: out.batch }, (_, i) => all.slice(i * width, (i + 1) * width));
    });
  }
}
