/** C-order strides (in elements) of a contiguous tensor of this shape. */
export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

/** True when the view walks its elements in C order without gaps (size-1 dims may have any stride). */
export function isContiguous(shape: readonly number[], strides: readonly number[]): boolean {
  const expected = contiguousStrides(shape);
  return shape.every((size, d) => size === 1 || strides[d] === expected[d]);
}

/** Index (in elements, relative to the view's start) one past the farthest element the view touches. */
export function viewExtent(shape: readonly number[], strides: readonly number[]): number {
  if (shape.some((size) => size === 0)) return 0;
  let last = 0;
  for (let d = 0; d < shape.length; d++) last += (shape[d] - 1) * strides[d];
  return last + 1;
}

function laneArray(bytes: Uint8Array, elementBytes: number): Uint8Array | Uint16Array | Uint32Array {
  const { buffer, byteOffset, byteLength } = bytes;
  if (elementBytes === 2) return new Uint16Array(buffer, byteOffset, byteLength / 2);
  if (elementBytes === 4 || elementBytes === 8) return new Uint32Array(buffer, byteOffset, byteLength / 4);
  return new Uint8Array(buffer, byteOffset, byteLength);
}

/**
 * Copies a strided view out of `span` (whose first element is the view's element 0) into a new
 * C-order buffer. Elements move as integer lanes, so float bit patterns (NaN payloads) survive.
 */
export function gatherStrided(span: Uint8Array, elementBytes: number, shape: readonly number[], strides: readonly number[]): Uint8Array {
  const count = shape.reduce((n, d) => n * d, 1);
  const out = new Uint8Array(count * elementBytes);
  if (count === 0) return out;
  const lanes = elementBytes === 8 ? 2 : 1;
  const src = laneArray(span, elementBytes);
  const dst = laneArray(out, elementBytes);
  const rank = shape.length;
  if (rank === 0) {
    for (let l = 0; l < lanes; l++) dst[l] = src[l];
    return out;
  }
  const inner = shape[rank - 1];
  const innerStride = strides[rank - 1] * lanes;
  const index = new Array<number>(rank).fill(0);
  let written = 0;
  let base = 0;
  while (written < count * lanes) {
    let s = base * lanes;
    for (let i = 0; i < inner; i++, s += innerStride) {
      for (let l = 0; l < lanes; l++) dst[written++] = src[s + l];
    }
    // Advance the odometer over the outer dimensions.
    for (let d = rank - 2; d >= 0; d--) {
      index[d]++;
      base += strides[d];
      if (index[d] < shape[d]) break;
      base -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return out;
}
