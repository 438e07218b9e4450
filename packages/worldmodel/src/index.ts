export { planCem, type CandidateCost, type CemOptions, type CemResult } from './cem.js';
export { normalSampler } from './random.js';
