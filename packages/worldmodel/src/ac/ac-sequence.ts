// The V-JEPA 2-AC predictor's token sequence: per time step [action, state, (extrinsics), H·W frame
// tokens]. Host-side tables for it: the 3-D RoPE rows in that order and the frame-causal mask.
//
// Frame tokens rotate on (t, h·grid/H, w·grid/W). Conditioning tokens rotate only the temporal third,
// with their step as position: a frame-token row at (t, 0, 0), since a zero angle leaves the height
// and width parts unrotated.
import type { AcPredictorHparams } from '@jepa/gguf';
import { blockCausalMaskF16, ropeTables, signedSin } from '@jepa/graph';

export interface AcSequence {
  steps: number;
  /** Frame token grid of one step. */
  h: number;
  w: number;
}

/** Negative controls only: conditioning tokens rotated on all three axes (at (t, t, t)). */
export type AcRopeControl = 'cond-all-axes';

export function acTokensPerStep(p: AcPredictorHparams, s: AcSequence): number {
  return p.condTokens + s.h * s.w;
}

export function acSequenceLength(p: AcPredictorHparams, s: AcSequence): number {
  return s.steps * acTokensPerStep(p, s);
}

/** cos and signed sin, [N, headDim] row-major in sequence order. */
export function acRopeTables(p: AcPredictorHparams, s: AcSequence, control?: AcRopeControl): { cos: Float32Array; sin: Float32Array } {
  const { steps: T, h: H, w: W } = s;
  const hd = p.headDim;
  const base = { headDim: hd, layout: p.rope.layout, theta: p.rope.theta };
  const frames = ropeTables({ ...base, grid: { t: T, h: H, w: W }, spatialScale: [p.gridSize / H, p.gridSize / W] });
  const cond =
    control === 'cond-all-axes'
      ? ropeTables({ ...base, grid: { t: T, h: T, w: T }, ids: Array.from({ length: T }, (_, t) => t * T * T + t * T + t) })
      : ropeTables({ ...base, grid: { t: T, h: 1, w: 1 } });
  const condSin = signedSin(cond);
  const frameSin = signedSin(frames);
  const perStep = acTokensPerStep(p, s);
  const cos = new Float32Array(T * perStep * hd);
  const sin = new Float32Array(T * perStep * hd);
  for (let t = 0; t < T; t++) {
    let row = t * perStep;
    for (let c = 0; c < p.condTokens; c++, row++) {
      cos.set(cond.cos.subarray(t * hd, (t + 1) * hd), row * hd);
      sin.set(condSin.subarray(t * hd, (t + 1) * hd), row * hd);
    }
    const first = t * H * W;
    cos.set(frames.cos.subarray(first * hd, (first + H * W) * hd), row * hd);
    sin.set(frameSin.subarray(first * hd, (first + H * W) * hd), row * hd);
  }
  return { cos, sin };
}

/** Additive F16 [N, N]: a query of step t attends every token of steps ≤ t, its conditioning tokens included. */
export function acFrameCausalMask(p: AcPredictorHparams, s: AcSequence): Uint16Array {
  return blockCausalMaskF16({ prefix: 0, slots: s.steps, tokensPerSlot: acTokensPerStep(p, s) });
}
