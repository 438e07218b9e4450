export { ConvertError, type ConvertErrorCode } from './errors.js';
export type { Checkpoint, CheckpointFormat } from './readers/checkpoint.js';
export { openCheckpoint } from './readers/open-checkpoint.js';
export { DTYPE_BYTES, type TensorDType, type TensorData, type TypedArray } from './readers/dtypes.js';
export { halfToFloat32Bits, toFloat32 } from './readers/to-float32.js';
export { isTensorRef, renameTensor, type TensorLocation, type TensorRef } from './readers/tensor-ref.js';
export { streamTensors } from './readers/stream-tensors.js';
export { flattenTensors, selectStateDict, stripPrefixes, valueAt, type SelectedStateDict } from './readers/state-dict.js';
export {
  MAX_SAFETENSORS_HEADER,
  readSafetensorsHeader,
  type SafetensorsEntry,
  type SafetensorsHeader,
} from './readers/safetensors/header.js';
export { unpickle, type UnpickleOptions } from './readers/torch/unpickle.js';
export { TORCH_WHITELIST } from './readers/torch/torch-globals.js';
export { buildWhitelist, isTuple, PyGlobal, PyHandle, PyObject, type GlobalWhitelist, type PyValue } from './readers/pickle/py-values.js';
export {
  convertCheckpoint,
  detectFamily,
  WEIGHT_DTYPES,
  type ConvertOptions,
  type ConvertProgress,
  type ConvertSummary,
  type DetectedFamily,
  type WeightDtype,
} from './convert.js';
export { defaultOutputName } from './source.js';
// the conversion lives in @jepa/gguf (the forge writes f16 too); re-exported for this package's users
export { encodeHalf, encodeHalfScanned, f32BitsToBf16, f32BitsToF16, scanNonFinite, type NonFinite } from '@jepa/gguf';
export { MAPPINGS } from './mappings/index.js';
export type { Mapping, ArchOverrides } from './mappings/types.js';
export { META_ENCODER_ENTRIES } from './mappings/meta-encoder.js';
