export { GgufError, isGgufError, type GgufErrorCode } from './errors.js';
export {
  GGML_TYPES,
  GGML_TYPE_COUNT,
  GGML_MAX_DIMS,
  GgmlType,
  ggmlTypeInfo,
  ggmlTypeByName,
  tensorNbytes,
  type GgmlTypeInfo,
} from './ggml-types.js';
export {
  GGUF_VALUE_TAGS,
  gv,
  type GgufArray,
  type GgufMetadata,
  type GgufValue,
  type GgufValueType,
  type GgufTypedArray,
} from './gguf/value.js';
export { GGUF_DEFAULT_ALIGNMENT, GGUF_VERSION, GGML_MAX_NAME } from './gguf/constants.js';
export type { GgufHeader, GgufSkippedValue, GgufTensorInfo } from './gguf/header.js';
export {
  readGguf,
  readGgufFromBuffer,
  readGgufFromSource,
  type GgufValueAction,
  type GgufValueDecision,
  type GgufValueHead,
  type ReadOptions,
} from './gguf/reader.js';
export {
  GGUF_MAX_KEY_LENGTH,
  UNUSED_VALUE_MAX_BYTES,
  V8_MAX_STRING_LENGTH,
  V8_SAFE_ARRAY_LENGTH,
  maxInputMib,
  maxLabels,
  maxMetaItems,
} from './budgets.js';
export { keyBound, MAX_LABEL_BYTES, MAX_STRING_KEY_BYTES, type KeyBound } from './schema/key-bounds.js';
export { schemaReadOptions, schemaValuePolicy } from './schema/read-policy.js';
export { bufferSource, type ByteSource } from './gguf/byte-source.js';
export { GgufWriter, type DeclaredTensor, type GgufWriteResult } from './gguf/writer.js';
export * from './schema/families.js';
export { FAMILY_DEFINITIONS, FAMILY_TRAITS, HEAD_FAMILIES, isVideoOnlyFamily } from './schema/family/registry.js';
export { defineFamily, type FamilyDefinition, type FamilyEncoderDefaults, type TinyRecipe } from './schema/family/define.js';
export { DINOV3_ROPE_BASE } from './schema/family/dinov3.js';
export { KEYS, KEY_INDEX, type KeyDef, type KeyType } from './schema/keys.js';
export { LIMITS, SCHEMA_VERSION, MIN_ROPE_HEAD_DIM } from './schema/limits.js';
export type * from './schema/model-spec.js';
export { parseHparams } from './schema/parse-hparams.js';
export { hparamsToMetadata } from './schema/to-metadata.js';
export { FILE_TYPE_Q8_ROW, ROW_SCALE_SUFFIX, rowScaleName } from './schema/file-types.js';
export { expectedTensors, tensorNames, type TensorRole, type TensorSpec } from './schema/tensors.js';
export { ropePairOrder } from './schema/rope-pair-order.js';
export { POSITION_SCHEMES, positionPrefixRows, type PositionSchemeTraits } from './schema/position-schemes.js';
export { validateModel, loadModelSpec, loadModelSpecFromSource } from './validate/validate-model.js';
export { encodeHalf, encodeHalfScanned, f32BitsToBf16, f32BitsToF16, scanNonFinite, type HalfKind, type NonFinite } from './half.js';
export { forgeModel, forgeModelBytes, forgeHparams, type ForgeKnobs, type ForgedModel } from './forge/forge.js';
export { mulberry32 } from './forge/rng.js';
export { tinyAcPredictor } from './forge/tiny-hparams.js';
