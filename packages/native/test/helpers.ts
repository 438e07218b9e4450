import { mulberry32 } from '@jepa/gguf';
import {
  createContext,
  openBackend,
  quantizeRows,
  dequantizeRow,
  typeByName,
  type Backend,
  type Context,
  type Graph,
  type Tensor,
} from '../src/index.js';

export const F32 = 0;
export const F16 = 1;
export const I32 = 26;

let shared: Backend | undefined;
export function cpu(): Backend {
  shared ??= openBackend({ device: 'cpu', threads: 2 });
  return shared;
}

/** The forge's seeded generator, so every failure reproduces. */
export const rng = mulberry32;

export function uniform(n: number, seed: number, lo = -1, hi = 1): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = lo + (hi - lo) * r();
  return out;
}

/** Largest absolute difference over the largest reference magnitude. */
export function relMax(got: Float32Array, ref: ArrayLike<number>): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < ref.length; i++) {
    num = Math.max(num, Math.abs(got[i]! - ref[i]!));
    den = Math.max(den, Math.abs(ref[i]!));
  }
  return num / den;
}

export const count = (ne: number[]) => ne.reduce((a, b) => a * b, 1);

/** Pads a shape to ggml's four dimensions. */
export function dims4(ne: number[]): [number, number, number, number] {
  return [ne[0] ?? 1, ne[1] ?? 1, ne[2] ?? 1, ne[3] ?? 1];
}

/** Flat index of (i0, i1, i2, i3) in a contiguous tensor of shape ne (ggml order). */
export function at(ne: number[], i0: number, i1 = 0, i2 = 0, i3 = 0): number {
  const [n0, n1, n2] = dims4(ne);
  return i0 + n0 * (i1 + n1 * (i2 + n2 * i3));
}

/** Values rounded through f16 exactly as ggml stores them. */
export async function toF16(values: Float32Array): Promise<{ bits: Uint16Array; rounded: Float32Array }> {
  const bytes = await quantizeRows(F16, values, 1, values.length);
  return { bits: new Uint16Array(bytes.buffer, bytes.byteOffset, values.length), rounded: dequantizeRow(F16, bytes, values.length) };
}

export interface Input {
  tensor: Tensor;
  data: ArrayBufferView;
}

/** Builds a graph over `outputs`, allocates it, feeds the inputs, computes, reads output 0 as f32. */
export async function run(ctx: Context, outputs: Tensor[], inputs: Input[]): Promise<Float32Array[]> {
  for (const i of inputs) i.tensor.setInput();
  for (const o of outputs) o.setOutput();
  const graph = ctx.buildGraph(outputs);
  graph.validate(cpu());
  graph.allocate(cpu());
  for (const i of inputs) i.tensor.set(i.data);
  await graph.compute(cpu());
  const results = outputs.map((o) => o.get(new Float32Array(o.nbytes / 4)));
  graph.dispose();
  return results;
}

/** Shorthand: a context, f32 input tensors with seeded data. */
export function setup(shapes: number[][], seed = 1): { ctx: Context; tensors: Tensor[]; data: Float32Array[]; inputs: Input[] } {
  const ctx = createContext(256);
  const tensors = shapes.map((s) => ctx.newTensor(F32, s));
  const data = shapes.map((s, k) => uniform(count(s), seed * 101 + k));
  return { ctx, tensors, data, inputs: tensors.map((tensor, k) => ({ tensor, data: data[k]! })) };
}

/** Largest |a - r| / (atol + rtol |r|); the check passes when it is <= 1. */
export function worstError(actual: ArrayLike<number>, ref: ArrayLike<number>, atol: number, rtol: number): number {
  if (actual.length !== ref.length) throw new Error(`length ${actual.length} != ${ref.length}`);
  let worst = 0;
  for (let i = 0; i < ref.length; i++) {
    const a = actual[i]!;
    const r = ref[i]!;
    if (Number.isNaN(a) !== Number.isNaN(r)) return Infinity;
    if (Number.isNaN(r)) continue;
    if (a === r) continue;
    const e = Math.abs(a - r) / (atol + rtol * Math.abs(r));
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

export { typeByName, dequantizeRow, quantizeRows };

/** A chain of large matmuls: long enough (~0.1-1 s) to observe the event loop during compute. */
export function heavyGraph(): { ctx: Context; graph: Graph; out: Tensor; x: Tensor; feed: () => void } {
  const n = 768;
  const ctx = createContext(64);
  const w = ctx.newTensor(F32, [n, n]);
  const x = ctx.newTensor(F32, [n, n]);
  w.setInput();
  x.setInput();
  let y = x;
  for (let i = 0; i < 24; i++) y = ctx.norm(ctx.mulMat(w, y), 1e-5);
  y.setOutput();
  const graph = ctx.buildGraph([y]);
  graph.allocate(cpu());
  const wv = uniform(n * n, 1);
  const xv = uniform(n * n, 2);
  const feed = () => {
    w.set(wv);
    x.set(xv);
  };
  return { ctx, graph, out: y, x, feed };
}
