// What every head / predictor context shares with the encoder's: one backend, a graph cache keyed
// by shape (each graph built and validated once), one compute buffer the cached graphs take turns
// in, and calls that run one after another.
import { NativeError, openBackend, type Backend, type Context, type Graph } from '@jepa/native';
import { GraphError } from './errors.js';
import type { ModelHandle } from './model-handle.js';
import { GGML_F16, GGML_F32 } from './layers/attention.js';

export interface BuiltGraph {
  ctx: Context;
  graph: Graph;
}

let naiveNoticeShown = false;

/** Frees a graph that will not be cached; returns `err` to throw. */
function disposed(g: BuiltGraph, err: unknown): unknown {
  g.graph.dispose();
  g.ctx.dispose();
  return err;
}

export class GraphRunner<G extends BuiltGraph> implements AsyncDisposable {
  #backend: Backend | undefined;
  readonly #model: ModelHandle;
  readonly #graphs = new Map<string, G>();
  #queue: Promise<unknown> = Promise.resolve();
  #disposal: Promise<void> | undefined;

  constructor(model: ModelHandle, threads?: number) {
    this.#model = model;
    this.#backend = openBackend({ device: model.device, threads: threads ?? model.threads });
  }

  get backend(): Backend {
    if (!this.#backend) throw new GraphError('DISPOSED', 'the context was disposed');
    return this.#backend;
  }

  /**
   * The cached graph for `key`, built, validated against the backend and allocated on first use.
   * `build(flash)` gets `flash` (default off); when the backend refuses that graph, one built with
   * flash off is tried before giving up (ggml's CUDA flash attention takes only some head sizes);
   * JEPA_VALIDATE_GRAPH=0 skips both the validation and this fallback.
   */
  graph(key: string, build: (flash: boolean) => G, flash = false): G {
    const cached = this.#graphs.get(key);
    if (cached) return this.place(cached);
    let g = build(flash);
    try {
      if (this.#model.runtime.validateGraphs) g.graph.validate(this.backend);
    } catch (err) {
      if (!flash || !(err instanceof NativeError) || err.code !== 'UNSUPPORTED_OP') throw disposed(g, err);
      disposed(g, err);
      g = build(false);
      try {
        g.graph.validate(this.backend);
      } catch (naiveErr) {
        throw disposed(g, naiveErr);
      }
      if (!naiveNoticeShown) {
        naiveNoticeShown = true;
        this.#model.notice(`${err.message}; naive attention runs instead of flash attention on ${this.#model.device}`);
      }
    }
    try {
      g.graph.allocate(this.backend, { shared: this.#model.runtime.sharedCompute });
    } catch (err) {
      throw disposed(g, err);
    }
    this.#graphs.set(key, g);
    return g;
  }

  /**
   * Gives a cached graph its memory back when another graph of this runner took the shared compute
   * buffer since (its inputs are then unset): call before setting the inputs of a graph that was
   * fetched earlier than the last one. The buffer is as large as the largest graph, not their sum,
   * which a cache of one graph per batch size would reach under varied load.
   */
  place(g: G): G {
    if (!g.graph.placed) g.graph.allocate(this.backend, { shared: this.#model.runtime.sharedCompute });
    return g;
  }

  /** Whether dispose() was called. */
  get disposed(): boolean {
    return this.#disposal !== undefined;
  }

  /**
   * Runs `job` after every earlier job of this runner has settled. A job that starts after its
   * model or this runner was disposed is refused: the cached graphs would otherwise keep running on
   * released weights.
   */
  serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      if (this.#model.disposed) throw new GraphError('DISPOSED', 'the model was disposed');
      if (this.disposed) throw new GraphError('DISPOSED', 'the context was disposed');
      return job();
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Refuses the jobs that have not started, waits for the one running, then frees the graphs and the backend. */
  dispose(): Promise<void> {
    this.#disposal ??= this.#queue.then(() => this.#free());
    return this.#disposal;
  }

  #free(): void {
    for (const g of this.#graphs.values()) {
      g.graph.dispose();
      g.ctx.dispose();
    }
    this.#graphs.clear();
    this.#backend?.dispose();
    this.#backend = undefined;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}

/**
 * A compute deadline over one call (an encode, a classify, a predict), which may run several graphs:
 * each gets the time that is left, and ggml stops the one running when it passes, between two nodes.
 */
export class Deadline {
  readonly #at: number;
  /** Nodes of the call's graphs before the one running, and in all of them. */
  done = 0;
  total: number;

  private constructor(
    readonly timeoutMs: number,
    readonly what: string,
    total: number,
  ) {
    this.#at = performance.now() + timeoutMs;
    this.total = total;
  }

  /** A deadline `timeoutMs` from now, or undefined without one; refuses a negative or non-finite value. */
  static of(timeoutMs: number | undefined, what: string, total = 0): Deadline | undefined {
    if (timeoutMs === undefined) return undefined;
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0)
      throw new GraphError('BAD_OPTION', `timeoutMs must be a finite number of ms >= 0, got ${String(timeoutMs)}`);
    return new Deadline(timeoutMs, what, total);
  }

  /** ms left, never below 0. */
  get left(): number {
    return Math.max(0, this.#at - performance.now());
  }

  error(nodesDone: number): GraphError {
    return new GraphError(
      'TIMEOUT',
      `the ${this.what} ran past the ${formatDuration(this.timeoutMs)} deadline (timeoutMs, --timeout) after node ${this.done + nodesDone} of ${this.total}; nothing was returned`,
    );
  }
}

function formatDuration(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toPrecision(6))} s` : `${Number(ms.toPrecision(6))} ms`;
}

/**
 * graph.compute (or, with `timings`, graph.profile, whose node times it fills) within what is left of
 * the deadline; a graph stopped by it throws the deadline's GraphError TIMEOUT. Counts the graph's
 * nodes into the deadline's progress when it finishes.
 */
export async function runGraph(graph: Graph, backend: Backend, deadline: Deadline | undefined, timings?: NodeTiming[]): Promise<void> {
  const options = deadline ? { timeoutMs: deadline.left } : undefined;
  try {
    if (timings) timings.push(...nodeTimings(graph, await graph.profile(backend, options)));
    else await graph.compute(backend, options);
  } catch (err) {
    if (deadline && err instanceof NativeError && err.code === 'DEADLINE') throw deadline.error(err.nodesDone ?? 0);
    throw err;
  }
  if (deadline) deadline.done += graph.nodeCount;
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

/** The flash-attention K/V type: forced by the option or the runtime's (JEPA_KV_*), else F32 for f32 files and F16 otherwise. */
export function kvTypeFor(model: Pick<ModelHandle, 'spec' | 'runtime'>, forced: 'f16' | 'f32' | undefined): number {
  const kv = forced ?? model.runtime.kv;
  if (kv) return kv === 'f16' ? GGML_F16 : GGML_F32;
  const ft = model.spec.fileType;
  return ft === null || ft === 0 ? GGML_F32 : GGML_F16;
}
