export { planCem, type CandidateCost, type CemOptions, type CemResult } from './cem.js';
export { normalSampler } from './random.js';
export { causalMaskF16 } from './causal-mask.js';
export { WorldModelError } from './errors.js';
export { type ActionStats, denormalizeActions, normalizeActions } from './action-stats.js';
export { WorldModel, type PlanOptions, type PlanResult, type Sequences, type WorldModelOptions } from './world-model.js';
export { runCem, eliteStats, type CemIteration, type CemRules } from './cem.js';
export {
  AcWorldModel,
  AC_REPS_EPS,
  normalizeRows,
  type AcCemIteration,
  type AcPlan,
  type AcPlanOptions,
  type AcPredictOptions,
  type AcRollout,
  type AcRolloutInput,
  type AcSteps,
  type AcWorldModelOptions,
} from './ac/ac-world-model.js';
export { acCemRules, acCemSettings, AC_ACTION_DIM, type AcCemOptions, type AcCemSettings } from './ac/ac-cem.js';
export { composePose, eulerXyzToMatrix, matrixToEulerXyz } from './ac/pose.js';
export { acFrameCausalMask, acRopeTables, acSequenceLength, type AcRopeControl, type AcSequence } from './ac/ac-sequence.js';
