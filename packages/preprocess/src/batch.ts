import { PreprocessError } from './errors.js';

interface Tensor<S extends number[]> {
  data: Float32Array;
  shape: S;
}

function stack<S extends number[]>(items: Tensor<S>[], what: string): { data: Float32Array; shape: number[] } {
  if (items.length === 0) throw new PreprocessError('invalid_argument', `${what}: nothing to stack`);
  const shape = items[0].shape;
  const itemSize = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(items.length * itemSize);
  items.forEach((item, i) => {
    if (item.shape.length !== shape.length || item.shape.some((d, k) => d !== shape[k]) || item.data.length !== itemSize) {
      throw new PreprocessError(
        'shape_mismatch',
        `${what}: item ${i} has shape [${item.shape.join(', ')}] (${item.data.length} values), item 0 has [${shape.join(', ')}]`,
      );
    }
    data.set(item.data, i * itemSize);
  });
  return { data, shape: [items.length, ...shape] };
}

/** Stacks [3, H, W] images into one [N, 3, H, W] batch. */
export function stackNCHW(items: Tensor<[number, number, number]>[]): Tensor<[number, number, number, number]> {
  const { data, shape } = stack(items, 'stackNCHW');
  return { data, shape: shape as [number, number, number, number] };
}

/** Stacks [3, T, H, W] clips into one [N, 3, T, H, W] batch. */
export function stackNCTHW(items: Tensor<[number, number, number, number]>[]): Tensor<[number, number, number, number, number]> {
  const { data, shape } = stack(items, 'stackNCTHW');
  return { data, shape: shape as [number, number, number, number, number] };
}
