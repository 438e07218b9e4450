// V-JEPA 2-AC's predictor over K candidates of T steps in one graph:
//   frames = embed(tokens); a = ac.action(actions); s = ac.state(states); (e = ac.extrinsics(extrinsics))
//   x = per step [a, s, (e), frames]; L pre-LN RoPE blocks under the frame-causal mask;
//   drop the conditioning tokens; norm; proj. Optionally only the last step's frames come out,
//   optionally through the non-affine LayerNorm the planner applies to every representation.
import type { Context, Graph, Tensor } from '@jepa/native';
import { tensorNames, type AcPredictorHparams } from '@jepa/gguf';
import { GGML_F32, graphContext, graphInput, layerNorm, linear, maskInput, ropeInputs, vitBlock, type Weights } from '@jepa/graph';
import { acSequenceLength, acTokensPerStep, type AcSequence } from './ac-sequence.js';

export interface AcGraphShape extends AcSequence {
  candidates: number;
  /** Output only the last step's frame tokens (a rollout step) instead of every step's. */
  lastStepOnly: boolean;
}

export interface AcGraphOptions {
  flash: boolean;
  kvType: number;
  precF32: boolean;
  masked: boolean;
  /** eps of a non-affine LayerNorm over each output token, or null for the predictor's raw output. */
  normalizeEps: number | null;
}

export interface AcPredictorGraph {
  ctx: Context;
  graph: Graph;
  /** [encD, H·W, T, K], [actionDim, T, K], [stateDim, T, K], [actionDim − 1, T, K]. */
  tokens: Tensor;
  actions: Tensor;
  states: Tensor;
  extrinsics: Tensor | null;
  ropeCos: Tensor;
  ropeSin: Tensor;
  mask: Tensor | null;
  /** [encD, H·W · T' · K] with T' = 1 (lastStepOnly) or T. */
  output: Tensor;
}

export function buildAcPredictorGraph(p: AcPredictorHparams, encDim: number, w: Weights, shape: AcGraphShape, o: AcGraphOptions): AcPredictorGraph {
  const P = p.embedDim;
  const { steps: T, candidates: K } = shape;
  const hw = shape.h * shape.w;
  const perStep = acTokensPerStep(p, shape);
  const n = acSequenceLength(p, shape);
  const ctx = graphContext(p.nLayer, undefined, n);
  const input = (type: number, ne: number[], name: string) => graphInput(ctx, type, ne, name);
  const tokens = input(GGML_F32, [encDim, hw, T, K], 'ac_tokens');
  const actions = input(GGML_F32, [p.actionDim, T, K], 'ac_actions');
  const states = input(GGML_F32, [p.stateDim, T, K], 'ac_states');
  const extrinsics = p.extrinsics ? input(GGML_F32, [p.actionDim - 1, T, K], 'ac_extrinsics') : null;
  const rope = ropeInputs(ctx, p.headDim, n, 'ac_');
  const mask = o.masked ? maskInput(ctx, n, n, 'ac_frame_causal_mask') : null;

  const rows = T * K;
  const cond = (x: Tensor, width: number, name: string) => ctx.reshape(linear(ctx, ctx.reshape(x, [width, rows]), w, name, o.precF32), [P, 1, rows]);
  const parts = [cond(actions, p.actionDim, 'pred.ac.action'), cond(states, p.stateDim, 'pred.ac.state')];
  if (extrinsics) parts.push(cond(extrinsics, p.actionDim - 1, 'pred.ac.extrinsics'));
  parts.push(ctx.reshape(linear(ctx, ctx.reshape(tokens, [encDim, hw * rows]), w, 'pred.embed', o.precF32), [P, hw, rows]));
  let x = parts.reduce((acc, t) => ctx.concat(acc, t, 1)); // [P, perStep, T·K]
  x = ctx.reshape(x, [P, n, K]);

  for (let i = 0; i < p.nLayer; i++) {
    x = vitBlock(ctx, x, w, tensorNames.predBlock(i), {
      dim: P,
      nHead: p.nHead,
      lnEps: p.lnEps,
      act: p.act,
      rope,
      attn: { mask, flash: o.flash, kvType: o.kvType, precF32: o.precF32 },
      precF32: o.precF32,
    });
  }
  const steps4 = ctx.reshape(x, [P, perStep, T, K]);
  const keep = shape.lastStepOnly ? 1 : T;
  const first = T - keep;
  const frames = ctx.view(steps4, [P, hw, keep, K], [steps4.nb[1], steps4.nb[2], steps4.nb[3]], p.condTokens * steps4.nb[1] + first * steps4.nb[2]);
  const flat = ctx.reshape(ctx.cont(frames), [P, hw * keep * K]);
  let out = linear(ctx, layerNorm(ctx, flat, w, 'pred.norm', p.lnEps), w, 'pred.proj', o.precF32);
  if (o.normalizeEps !== null) out = ctx.norm(out, o.normalizeEps);
  out.name = 'ac_pred';
  out.setOutput();
  return { ctx, graph: ctx.buildGraph([out]), tokens, actions, states, extrinsics, ropeCos: rope.cos, ropeSin: rope.sin, mask, output: out };
}
