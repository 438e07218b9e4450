// What every head / predictor context shares with the encoder's: one backend, a graph cache keyed
// by shape (each graph validated and allocated once), and calls that run one after another.
import { openBackend, type Backend, type Context, type Graph } from '@jepa/native';
import { GraphError } from './errors.js';
import type { Model } from './model.js';
import { GGML_F16, GGML_F32 } from './attention.js';
import { kvOverride, validateGraphs } from './runtime-options.js';

export interface BuiltGraph {
  ctx: Context;
  graph: Graph;
}

export class GraphRunner<G extends BuiltGraph> implements Disposable {
  #backend: Backend | undefined;
  readonly #graphs = new Map<string, G>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(model: Model, threads?: number) {
    this.#backend = openBackend({ device: model.device, threads: threads ?? model.threads });
  }

  get backend(): Backend {
    if (!this.#backend) throw new GraphError('the context was disposed', 'DISPOSED');
    return this.#backend;
  }

  /** The cached graph for `key`, built, validated against the backend and allocated on first use. */
  graph(key: string, build: () => G): G {
    const cached = this.#graphs.get(key);
    if (cached) return cached;
    const g = build();
    try {
      if (validateGraphs()) g.graph.validate(this.backend);
      g.graph.allocate(this.backend);
    } catch (err) {
      g.graph.dispose();
      g.ctx.dispose();
      throw err;
    }
    this.#graphs.set(key, g);
    return g;
  }

  /** Runs `job` after every earlier job of this runner has settled. */
  serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(job);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  dispose(): void {
    for (const g of this.#graphs.values()) {
      g.graph.dispose();
      g.ctx.dispose();
    }
    this.#graphs.clear();
    this.#backend?.dispose();
    this.#backend = undefined;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** One graph node's share of a profiled run. */
export interface NodeTiming {
  /** `'name' OP type [ne…]`, as Graph.nodes() describes it. */
  node: string;
  op: string;
  ms: number;
}

export function nodeTimings(graph: Graph, ms: number[]): NodeTiming[] {
  const nodes = graph.nodes();
  const ops = graph.ops();
  return ms.map((t, i) => ({ node: nodes[i]!, op: ops[i]!, ms: t }));
}

/** Sums node timings per op, largest first. */
export function timingsByOp(nodes: readonly NodeTiming[]): { op: string; ms: number; nodes: number }[] {
  const by = new Map<string, { op: string; ms: number; nodes: number }>();
  for (const t of nodes) {
    const row = by.get(t.op) ?? { op: t.op, ms: 0, nodes: 0 };
    row.ms += t.ms;
    row.nodes += 1;
    by.set(t.op, row);
  }
  return [...by.values()].sort((a, b) => b.ms - a.ms);
}

/** The flash-attention K/V type: forced by the option or JEPA_KV_*, else F32 for f32 files and F16 otherwise. */
export function kvTypeFor(model: Model, forced: 'f16' | 'f32' | undefined): number {
  const kv = forced ?? kvOverride();
  if (kv) return kv === 'f16' ? GGML_F16 : GGML_F32;
  const ft = model.spec.fileType;
  return ft === null || ft === 0 ? GGML_F32 : GGML_F16;
}
