// Runs the model's classifier (attentive, or linear on a pooled token) over encoder tokens: logits, softmax and top-k labels.
import { GraphError } from '../errors.js';
import type { EncodeOutput } from '../encoder-context.js';
import type { ModelHandle } from '../model-handle.js';
import { buildAttentiveHeadGraph, type AttentiveHeadGraph } from './attentive-head-graph.js';
import { buildLinearHeadGraph, type LinearHeadGraph } from './linear-head-graph.js';
import { Deadline, kvTypeFor, runGraph } from '../graph-runner.js';
import { ModelContext } from '../model-context.js';

export interface HeadContextOptions {
  threads?: number;
  /** Naive mul_mat + soft_max_ext attention. */
  noFlash?: boolean;
  /** K/V type of the self-attention blocks (the cross-attention is always F32). */
  kv?: 'f16' | 'f32';
  /** A compute deadline for each logits() / classify() call, in ms (see EncoderContextOptions.timeoutMs). */
  timeoutMs?: number;
}

export interface ClassScore {
  index: number;
  label: string;
  logit: number;
  prob: number;
}

export interface Classification {
  logits: Float32Array;
  probs: Float32Array;
  /** The k most probable classes, best first (ties: lower index first). */
  top: ClassScore[];
}

/** Numerically stable softmax, accumulated in double precision. */
export function softmax(logits: ArrayLike<number>): Float32Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]!);
  let sum = 0;
  const e = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) sum += e[i] = Math.exp(logits[i]! - max);
  return Float32Array.from(e, (v) => v / sum);
}

export function topK(logits: ArrayLike<number>, k: number): number[] {
  const order = Array.from({ length: logits.length }, (_, i) => i);
  order.sort((a, b) => logits[b]! - logits[a]! || a - b);
  return order.slice(0, Math.max(0, Math.min(k, logits.length)));
}

export class HeadContext extends ModelContext<AttentiveHeadGraph | LinearHeadGraph> {
  readonly #options: HeadContextOptions;

  constructor(model: ModelHandle, options: HeadContextOptions = {}) {
    if (!model.spec.head) throw new GraphError('NO_HEAD', `${model.spec.name} has no classifier head`);
    super(model, options.threads);
    this.#options = options;
  }

  /**
   * Logits of each item: [batch][nClasses]. The attentive head reads the patch tokens (prefix tokens are not fed
   * to it), the linear head every token (ViViT's reads the CLS).
   */
  logits(tokens: EncodeOutput): Promise<Float32Array[]> {
    return this.runner.serial(() => this.#run(tokens, 'logits'));
  }

  /**
   * The vector the classifier reads, of each item: [batch][D]. The attentive pooler's output, VideoMAE's
   * fc_norm of the token mean, ViViT's CLS token.
   */
  pooled(tokens: EncodeOutput): Promise<Float32Array[]> {
    return this.runner.serial(() => this.#run(tokens, 'pooled'));
  }

  async classify(tokens: EncodeOutput, k = 5): Promise<Classification[]> {
    const labels = this.model.spec.labels;
    return (await this.logits(tokens)).map((logits) => {
      const probs = softmax(logits);
      const top = topK(logits, k).map((index) => ({ index, label: labels?.[index] ?? String(index), logit: logits[index]!, prob: probs[index]! }));
      return { logits, probs, top };
    });
  }

  async #run(out: EncodeOutput, read: 'logits' | 'pooled'): Promise<Float32Array[]> {
    const deadline = Deadline.of(this.#options.timeoutMs, 'classifier head');
    const spec = this.model.spec;
    const head = spec.head!;
    if (out.dim !== spec.enc.embedDim)
      throw new GraphError('BAD_INPUT', `the head takes ${spec.enc.embedDim}-wide tokens, these are ${out.dim} wide`);
    const from = head.kind === 'linear' ? 0 : out.prefix;
    const n = out.nTokens - from;
    if (n < 1 || out.nTokens - out.prefix < 1) throw new GraphError('BAD_INPUT', 'the encoder output has no patch tokens');
    const backend = this.runner.backend;
    const precF32 = !backend.isCpu && this.model.runtime.gpuPrecF32;
    const g = this.runner.graph(
      String(n),
      (flash) =>
        head.kind === 'linear'
          ? buildLinearHeadGraph(spec.enc, head, this.model.weights, n, precF32)
          : buildAttentiveHeadGraph(spec.enc, head, this.model.weights, n, {
              flash,
              crossFlash: flash && this.model.weights.onCpu,
              kvType: kvTypeFor(this.model, this.#options.kv),
              precF32,
            }),
      !this.#options.noFlash,
    );
    const result: Float32Array[] = [];
    if (deadline) deadline.total = out.batch * g.graph.nodeCount;
    for (let b = 0; b < out.batch; b++) {
      g.tokens.set(out.item(b).subarray(from * out.dim));
      await runGraph(g.graph, backend, deadline);
      result.push(read === 'logits' ? g.logits.get(new Float32Array(head.nClasses)) : g.pooled.get(new Float32Array(spec.enc.embedDim)));
    }
    return result;
  }
}
