import type { TensorDType } from '../dtypes.js';

/** torch.<X>Storage class names (as torch.save writes them in persistent ids) to dtypes. */
export const STORAGE_DTYPES: Readonly<Record<string, TensorDType>> = {
  DoubleStorage: 'f64',
  FloatStorage: 'f32',
  HalfStorage: 'f16',
  BFloat16Storage: 'bf16',
  LongStorage: 'i64',
  IntStorage: 'i32',
  ShortStorage: 'i16',
  CharStorage: 'i8',
  ByteStorage: 'u8',
  BoolStorage: 'bool',
};
