export { planCem, type CandidateCost, type CemOptions, type CemResult } from './cem.js';
export { normalSampler } from './random.js';
export { causalMaskF16 } from './causal-mask.js';
export { WorldModelError } from './errors.js';
export { WorldModel, type ActionStats, type PlanOptions, type PlanResult, type Sequences, type WorldModelOptions } from './world-model.js';
