import { ConvertError } from '../../errors.js';
import { assertReadableSize, DTYPE_BYTES, elementCount } from '../dtypes.js';
import type { PyValue } from '../pickle/py-values.js';
import { gatherStrided, isContiguous, viewExtent } from '../strided-copy.js';
import { createTensorRef, type TensorRef } from '../tensor-ref.js';
import { TorchStorage } from './torch-storage.js';

function shown(value: PyValue): string {
  return Array.isArray(value) ? `(${value.map((v) => String(v)).join(', ')})` : String(value);
}

/** A size or stride tuple; an element too large to address is told apart from one of the wrong kind. */
function intList(value: PyValue, what: string): number[] {
  if (!Array.isArray(value)) throw new ConvertError('CONVERT_BAD_SHAPE', `torch tensor: ${what} ${shown(value)} is not a tuple of integers`);
  value.forEach((v, i) => {
    const integer = typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));
    if (!integer || (v as number | bigint) < 0) {
      throw new ConvertError(
        'CONVERT_BAD_SHAPE',
        `torch tensor: ${what} ${shown(value)} has element ${i} = ${String(v)}, not a non-negative integer`,
      );
    }
    if (typeof v === 'bigint' || !Number.isSafeInteger(v)) {
      throw new ConvertError(
        'CONVERT_TENSOR_TOO_LARGE',
        `torch tensor: ${what} ${shown(value)} has element ${i} = ${String(v)}, past 2^53 - 1, the largest size read`,
      );
    }
  });
  return [...(value as number[])];
}

/**
 * torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, ...) as a lazy view:
 * validated against its storage now, read (and made contiguous) only when asked.
 */
export function rebuildTensor(storage: PyValue, storageOffset: PyValue, size: PyValue, stride: PyValue): TensorRef {
  if (!(storage instanceof TorchStorage)) throw new ConvertError('PICKLE_BAD_CALL', 'torch tensor: the storage argument is not a persistent storage');
  if (!Number.isSafeInteger(storageOffset) || (storageOffset as number) < 0) {
    throw new ConvertError('TORCH_TENSOR_OUT_OF_STORAGE', `torch tensor on storage ${storage.key}: bad storage offset ${String(storageOffset)}`);
  }
  const offset = storageOffset as number;
  const shape = intList(size, 'size');
  const strides = intList(stride, 'stride');
  if (strides.length !== shape.length)
    throw new ConvertError('CONVERT_BAD_SHAPE', `torch tensor on storage ${storage.key}: ${shape.length} sizes but ${strides.length} strides`);
  const count = elementCount(shape, `torch tensor on storage ${storage.key}`);
  const extent = viewExtent(shape, strides);
  if (extent > 0 && offset + extent > storage.numel) {
    throw new ConvertError(
      'TORCH_TENSOR_OUT_OF_STORAGE',
      `torch tensor [${shape.join(', ')}] (offset ${offset}, strides [${strides.join(', ')}]) reaches element ${offset + extent} of storage ${storage.key}, which has ${storage.numel}`,
    );
  }
  const elementBytes = DTYPE_BYTES[storage.dtype];
  assertReadableSize(extent * elementBytes, `torch tensor on storage ${storage.key}`);
  const contiguous = isContiguous(shape, strides);
  return createTensorRef({
    name: '',
    dtype: storage.dtype,
    shape,
    location: { kind: 'torch', file: storage.file, storageKey: storage.key, elementOffset: offset, strides },
    readContiguous: async () => {
      if (count === 0) return new Uint8Array(0);
      if (contiguous) return storage.readElements(offset, count);
      return gatherStrided(await storage.readElements(offset, extent), elementBytes, shape, strides);
    },
  });
}
