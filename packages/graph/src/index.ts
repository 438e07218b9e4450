export { Model, type ModelLoadOptions } from './model.js';
export type { ModelHandle, ModelOwned } from './model-handle.js';
export { EncodeOutput, EncoderContext, type EncodeOptions, type EncoderContextOptions, type EncoderInput, type PoolMode } from './encoder-context.js';
export { GraphError, type GraphErrorOptions, type InputPart } from './errors.js';
export { blockStageName, type EncoderStage } from './encoder-stages.js';
export { patchify, patchGrid, type PatchGeometry } from './patchify.js';
export {
  ropeAxisWidth,
  ropeTables,
  signedSin,
  tokenPosition,
  type RopeLayout,
  type RopeTableOptions,
  type RopeTables,
  type TokenGrid,
} from './rope3d.js';
export { rope2dTables, type Rope2dOptions } from './rope2d.js';
export { blockCausalMaskBytes, blockCausalMaskF16, blockCausalOpen, type BlockCausalLayout } from './block-causal-mask.js';
export {
  POLICY,
  compareTokens,
  cosine,
  judge,
  policyRow,
  relBound,
  tierOf,
  type Backend,
  type FamilyClass,
  type PolicyRow,
  type Tier,
  type TokenMetrics,
  type Verdict,
} from './parity.js';
export { HeadContext, softmax, topK, type ClassScore, type Classification, type HeadContextOptions } from './heads/head-context.js';
export {
  checkPredictorInputSize,
  contextOnlyTokens,
  MaskedPredictorContext,
  predictorTokens,
  type PredictInput,
  type PredictOutput,
  type PredictorContextOptions,
} from './predictor/masked-predictor-context.js';
export { predictorEncoderOutput } from './predictor/predictor-input.js';
export { AlignContext, type AlignContextOptions } from './text/align-context.js';
export { endPosition, TextContext, type TextContextOptions } from './text/text-context.js';
export { Deadline, GraphRunner, kvTypeFor, runGraph, timingsByOp, type BuiltGraph, type NodeTiming } from './graph-runner.js';
export { attention, GGML_F16, GGML_F32, type AttentionOptions } from './layers/attention.js';
export { layerNorm } from './layers/layer-norm.js';
export { activation, linear, type LinearThen } from './layers/linear.js';
export { blockFfn, mlp } from './layers/ffn.js';
export { vitBlock, type VitBlockOptions } from './layers/vit-block.js';
export { applyRope } from './layers/rope-apply.js';
export { headsMajor, packedPart, type HeadLayout } from './layers/head-split.js';
export { graphInput, maskInput, ropeInputs } from './layers/graph-inputs.js';
export { ADALN_BLOCK_TENSORS, BLOCK_TENSORS, graphContext } from './layers/graph-budget.js';
export { runtimeFromEnv, type RuntimeOptions } from './runtime-options.js';
export type { Weights } from './weights.js';
export {
  patchMatrix,
  patchPcaMap,
  pcaRgb,
  percentile,
  upsampleBilinear,
  type PatchPca,
  type RgbMap,
  type TokenGridShape,
} from './pca.js';
export { symmetricEigen } from './symmetric-eigen.js';
export { topEigen, type BlockOperator, type TopEigen, type TopEigenOptions } from './top-eigen.js';
export { returnFreedMemory } from './return-memory.js';
