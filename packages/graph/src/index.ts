export { Model, type ModelLoadOptions } from './model.js';
export { EncodeOutput, EncoderContext, type EncoderContextOptions, type EncoderInput, type PoolMode } from './encoder-context.js';
export { GraphError } from './errors.js';
export { patchify, patchGrid, type PatchGeometry } from './patchify.js';
export { ropeAxisWidth, ropeTables, signedSin, tokenPosition, type RopeLayout, type RopeTableOptions, type RopeTables, type TokenGrid } from './rope3d.js';
export { blockCausalMaskBytes, blockCausalMaskF16, blockCausalOpen, type BlockCausalLayout } from './block-causal-mask.js';
export { POLICY, compareTokens, cosine, judge, policyRow, relBound, tierOf, type Backend, type FamilyClass, type PolicyRow, type Tier, type TokenMetrics, type Verdict } from './parity.js';
