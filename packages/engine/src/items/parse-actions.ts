// Action sequences as a request gives them: nested numbers or a base64 float32 .npy.
import { readNpy, type NpyArray } from '@jepa/preprocess';
import { badField, itemFailure } from '../errors.js';
import { decodeBase64 } from './base64.js';

/**
 * Action sequences: [T][A] or [K][T][A] numbers, or a base64 float32 .npy of either shape.
 * Returns them flat, [K, T, A].
 */
export function parseActions(value: unknown, field: string, actionDim: number): { data: Float32Array; candidates: number; steps: number } {
  if (typeof value === 'string') {
    const npy = readNpyField(field, decodeBase64(field, value));
    const s = npy.shape;
    if (npy.dtype !== 'float32' || !((s.length === 2 || s.length === 3) && s[s.length - 1] === actionDim) || s.some((d) => d < 1))
      throw badField(field, `expected float32 [T, ${actionDim}] or [K, T, ${actionDim}], got ${npy.dtype} [${s.join(', ')}]`);
    const data = npy.data as Float32Array;
    if (!data.every(Number.isFinite)) throw badField(field, 'holds a value that is not finite');
    return { data, candidates: s.length === 3 ? s[0]! : 1, steps: s[s.length - 2]! };
  }
  if (!Array.isArray(value) || value.length === 0)
    throw badField(field, `must be [T][${actionDim}] or [K][T][${actionDim}] numbers, or a base64 .npy`);
  const three = Array.isArray(value[0]) && Array.isArray((value[0] as unknown[])[0]);
  const candidates = (three ? value : [value]) as unknown[];
  let steps = -1;
  const out: number[] = [];
  candidates.forEach((cand, k) => {
    const cf = three ? `${field}[${k}]` : field;
    if (!Array.isArray(cand) || cand.length === 0) throw badField(cf, 'must be a non-empty array of steps');
    if (steps < 0) steps = cand.length;
    if (cand.length !== steps) throw badField(cf, `has ${cand.length} steps; the first candidate has ${steps}`);
    cand.forEach((row, t) => {
      const rf = `${cf}[${t}]`;
      if (!Array.isArray(row)) throw badField(rf, `must be an array of ${actionDim} numbers`);
      if (row.length !== actionDim) throw badField(rf, `every step needs ${actionDim} values (the model's action width), got ${row.length}`);
      row.forEach((x, a) => {
        if (typeof x !== 'number' || !Number.isFinite(x)) throw badField(`${rf}[${a}]`, 'must be a finite number');
        out.push(x);
      });
    });
  });
  return { data: Float32Array.from(out), candidates: candidates.length, steps };
}

function readNpyField(field: string, bytes: Uint8Array): NpyArray {
  try {
    return readNpy(bytes);
  } catch (err) {
    throw itemFailure(field, err);
  }
}
