// A two-layer MLP over rows, fc1 -> act -> fc2: LeWM's projector (CLS -> state embedding) with its
// BatchNorm folded into fc1 by the converter.
import type { Context, Graph, Tensor } from '@jepa/native';
import type { Activation } from '@jepa/gguf';
import { GGML_F32, graphContext, graphInput, mlp, type Weights } from '@jepa/graph';

export interface MlpGraph {
  ctx: Context;
  graph: Graph;
  /** [inDim, rows]. */
  input: Tensor;
  /** [outDim, rows]. */
  output: Tensor;
}

export function buildMlpGraph(w: Weights, prefix: string, act: Activation, inDim: number, rows: number, precF32: boolean): MlpGraph {
  const ctx = graphContext(0);
  const input = graphInput(ctx, GGML_F32, [inDim, rows], `${prefix}.input`.slice(0, 63));
  const output = mlp(ctx, input, w, prefix, act, precF32);
  output.setOutput();
  return { ctx, graph: ctx.buildGraph([output]), input, output };
}
