// A two-layer MLP over rows, fc1 -> act -> fc2: LeWM's projector (CLS -> state embedding) with its
// BatchNorm folded into fc1 by the converter.
import { createContext, type Context, type Graph, type Tensor } from '@jepa/native';
import type { Activation } from '@jepa/gguf';
import { GGML_F32, linear, type Weights } from '@jepa/graph';

export interface MlpGraph {
  ctx: Context;
  graph: Graph;
  /** [inDim, rows]. */
  input: Tensor;
  /** [outDim, rows]. */
  output: Tensor;
}

export function buildMlpGraph(w: Weights, prefix: string, act: Activation, inDim: number, rows: number, precF32: boolean): MlpGraph {
  const ctx = createContext(16);
  const input = ctx.newTensor(GGML_F32, [inDim, rows]);
  input.name = `${prefix}.input`.slice(0, 63);
  input.setInput();
  const output = linear(ctx, linear(ctx, input, w, `${prefix}.fc1`, precF32, { act }), w, `${prefix}.fc2`, precF32);
  output.setOutput();
  return { ctx, graph: ctx.buildGraph([output]), input, output };
}
