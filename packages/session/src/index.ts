export { ModelSession, type PoolOptions, type SessionInput, type SessionOptions, type TextEmbedOptions } from './model-session.js';
export { textScores, topLabels } from './text-scores.js';
export {
  POOLS,
  alignedVectors,
  choosePool,
  headPooled,
  l2NormalizeRows,
  poolBatch,
  pooledWidth,
  poolOutputs,
  projectStates,
  type Pool,
  type TokenPool,
  type Vector,
  type VectorPool,
} from './pooling.js';
export { requirePart, type ModelPart } from './model-parts.js';
export { SessionError, badOption } from './refusal.js';
