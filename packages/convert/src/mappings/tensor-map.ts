// Source tensors → canonical outputs. A mapping declares each output with the source tensors it
// reads; what no output reads and no `ignored` pattern covers is reported as unmapped.
import { ConvertError } from '../errors.js';
import type { TensorRef } from '../readers/tensor-ref.js';

/** One GGUF tensor to write: its ggml shape, the source names it comes from, and its f32 data (read lazily). */
export interface OutputTensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly sources: readonly string[];
  produce(): Promise<Float32Array>;
}

/**
 * How a PyTorch shape becomes a ggml shape over the same C-order bytes:
 * - `vec`: flattened to one axis ([1, 1, D] modality vectors, [D] norms and biases);
 * - `linear`: [out, in] → [in, out];
 * - `conv`: [D, C, (T), P, P] → [C·T·P·P, D] (the kernel flattened in (C, T, kh, kw) order);
 * - `rows`: [..., n, D] → [D, n·…] (position tables, CLS/register/mask tokens, each row a token).
 */
export type Layout = 'vec' | 'linear' | 'conv' | 'rows';

function product(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

export function ggmlShape(shape: readonly number[], layout: Layout): number[] {
  switch (layout) {
    case 'vec':
      return [product(shape)];
    case 'linear':
      return shape.length === 2 ? [shape[1]!, shape[0]!] : [product(shape)];
    case 'conv':
      return [product(shape.slice(1)), shape[0] ?? 1];
    case 'rows': {
      const d = shape[shape.length - 1] ?? 1;
      return [d, product(shape.slice(0, -1))];
    }
  }
}

export class TensorMap {
  readonly outputs = new Map<string, OutputTensor>();
  readonly #used = new Set<string>();

  constructor(
    readonly source: ReadonlyMap<string, TensorRef>,
    private readonly ignored: readonly RegExp[],
  ) {}

  has(name: string): boolean {
    return this.source.has(name);
  }

  /** The source tensor, refused with the name when absent. */
  ref(name: string): TensorRef {
    const ref = this.source.get(name);
    if (!ref) throw new ConvertError('CONVERT_MISSING_TENSOR', `the checkpoint has no tensor '${name}'`);
    return ref;
  }

  shapeOf(name: string): readonly number[] {
    return this.ref(name).shape;
  }

  /** The [out, in] shape of a linear weight, refused with the name when absent or not 2-D. */
  matrixShape(name: string): [number, number] {
    const shape = this.shapeOf(name);
    if (shape.length !== 2)
      throw new ConvertError('CONVERT_SHAPE_MISMATCH', `'${name}' is [${shape.join(', ')}], not the [out, in] matrix of a linear layer`);
    return [shape[0]!, shape[1]!];
  }

  /** Source names matching `pattern`, in checkpoint order. */
  names(pattern: RegExp): string[] {
    return [...this.source.keys()].filter((n) => pattern.test(n));
  }

  /** The same bytes under a new name and ggml shape. */
  copy(out: string, src: string, layout: Layout): void {
    const ref = this.ref(src);
    this.define(out, ggmlShape(ref.shape, layout), [src], () => ref.readAsFloat32());
  }

  /** Copies `src` when present; returns whether it was. */
  copyIfPresent(out: string, src: string, layout: Layout): boolean {
    if (!this.has(src)) return false;
    this.copy(out, src, layout);
    return true;
  }

  /**
   * Stacks the sources along their first axis (PyTorch), i.e. along the output axis of linears or
   * the row axis of tables: q; k; v → qkv. All parts must agree on the other axes.
   */
  concat(out: string, srcs: readonly string[], layout: Layout): void {
    if (srcs.length === 0) throw new Error(`mapping bug: '${out}' stacked from no tensors`);
    const refs = srcs.map((s) => this.ref(s));
    const rest = refs[0]!.shape.slice(1);
    for (const r of refs) {
      if (r.shape.length !== refs[0]!.shape.length || r.shape.slice(1).some((d, i) => d !== rest[i])) {
        throw new ConvertError(
          'CONVERT_SHAPE_MISMATCH',
          `cannot stack ${srcs.join(', ')} into '${out}': '${r.name}' is [${r.shape.join(', ')}], '${refs[0]!.name}' is [${refs[0]!.shape.join(', ')}]`,
        );
      }
    }
    const stacked = [refs.reduce((a, r) => a + (r.shape[0] ?? 1), 0), ...rest];
    this.define(out, ggmlShape(stacked, layout), srcs, async () => {
      const parts: Float32Array[] = [];
      for (const r of refs) parts.push(await r.readAsFloat32());
      const data = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
      let at = 0;
      for (const p of parts) {
        data.set(p, at);
        at += p.length;
      }
      return data;
    });
  }

  /** An output computed from several sources (e.g. BatchNorm folded into a linear). */
  derive(out: string, shape: readonly number[], srcs: readonly string[], produce: (inputs: Float32Array[]) => Float32Array): void {
    const refs = srcs.map((s) => this.ref(s));
    this.define(out, shape, srcs, async () => {
      const inputs: Float32Array[] = [];
      for (const r of refs) inputs.push(await r.readAsFloat32());
      return produce(inputs);
    });
  }

  /** Replaces a defined output's data by `fn` of it, same shape (a permutation of rows, say). */
  rewrite(out: string, fn: (data: Float32Array) => Float32Array): void {
    const o = this.outputs.get(out);
    if (!o) throw new Error(`mapping bug: output '${out}' rewritten before it is defined`);
    this.outputs.set(out, { name: o.name, shape: o.shape, sources: o.sources, produce: async () => fn(await o.produce()) });
  }

  /** Marks source tensors as read without writing them (e.g. a folded BatchNorm's counter). */
  consume(...srcs: string[]): void {
    for (const s of srcs) if (this.has(s)) this.#used.add(s);
  }

  /** Source tensors no output reads, split into those an ignore rule covers and the rest. */
  leftovers(): { unmapped: string[]; ignored: string[] } {
    const unmapped: string[] = [];
    const ignored: string[] = [];
    for (const name of this.source.keys()) {
      if (this.#used.has(name)) continue;
      (this.ignored.some((re) => re.test(name)) ? ignored : unmapped).push(name);
    }
    return { unmapped, ignored };
  }

  private define(name: string, shape: readonly number[], sources: readonly string[], produce: () => Promise<Float32Array>): void {
    if (this.outputs.has(name)) throw new Error(`mapping bug: output '${name}' defined twice`);
    for (const s of sources) this.#used.add(s);
    this.outputs.set(name, { name, shape, sources, produce });
  }
}
