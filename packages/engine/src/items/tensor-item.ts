// A preprocessed float32 tensor as one encoder item, checked as the encoder checks it.
import type { ModelSpec } from '@jepa/gguf';
import { type ItemTensor, isVideoOnly } from '@jepa/input';
import type { NpyArray } from '@jepa/preprocess';
import { badField } from '../errors.js';

export interface LoadedItem {
  tensor: ItemTensor;
  /** A still image (or a single-frame tensor): it may share a graph with other stills of its shape. */
  still: boolean;
}

/**
 * A preprocessed float32 tensor as one encoder item: [C, H, W] or [C, T, H, W] (a leading batch of
 * one is dropped), checked as the encoder checks it, so a bad item fails alone rather than its batch.
 */
export function tensorItem(field: string, spec: ModelSpec, npy: NpyArray): LoadedItem {
  if (npy.dtype !== 'float32') throw badField(field, `must be float32, got ${npy.dtype}`, 'invalid_tensor');
  let shape = [...npy.shape];
  if ((shape.length === 4 || shape.length === 5) && shape[0] === 1) shape = shape.slice(1);
  const e = spec.enc;
  if (!(shape.length === 3 || shape.length === 4) || !shape.every((d) => Number.isInteger(d) && d > 0))
    throw badField(field, `shape [${npy.shape.join(', ')}] is not [C, H, W] or [C, T, H, W]`, 'invalid_tensor');
  const frames = shape.length === 4 ? shape[1]! : 1;
  const [channels] = shape as [number];
  const height = shape[shape.length - 2]!;
  const width = shape[shape.length - 1]!;
  if (channels !== e.inChans) throw badField(field, `shape [${shape.join(', ')}]: the model takes ${e.inChans} channels`, 'invalid_tensor');
  const tubelet = e.imgTubeletSize !== null && frames === 1 ? e.imgTubeletSize : e.tubeletSize;
  if (frames % tubelet !== 0)
    throw badField(field, `shape [${shape.join(', ')}]: ${frames} frames are not a whole number of ${tubelet}-frame tubelets`, 'invalid_tensor');
  if (height < e.patchSize || width < e.patchSize)
    throw badField(field, `shape [${shape.join(', ')}]: a ${width}x${height} input is smaller than one ${e.patchSize}-pixel patch`, 'invalid_tensor');
  const data = npy.data as Float32Array;
  for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i]!)) throw badField(field, `value ${i} is not finite`, 'invalid_tensor');
  return { tensor: { data, shape }, still: frames === 1 && !isVideoOnly(spec) };
}
