export { ropeAxisWidth, ropeTables, signedSin, tokenPosition, type RopeLayout, type RopeTableOptions, type RopeTables, type TokenGrid } from './rope3d.js';
export { blockCausalMaskBytes, blockCausalMaskF16, blockCausalOpen, type BlockCausalLayout } from './block-causal-mask.js';
