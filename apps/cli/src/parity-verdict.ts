// The parity judge (@jepa/graph's POLICY, compareTokens, judge) over two float32 arrays, for
// `jepa compare` and `jepa worldmodel --ref-check`. Exit 0: pass; 3: compared and failed; 2: the
// inputs cannot be compared (CONTRIBUTING.md, "Debugging a port").
import { POLICY, compareTokens, judge, relBound, type PolicyRow, type Verdict } from '@jepa/graph';
import { isUserFacing } from '@jepa/errors';
import { readNpy, type NpyArray } from '@jepa/preprocess';
import { checkInputFile, UserError } from './user-error.js';

/** Exit code of a comparison that ran and failed its bars (2 stays "could not compare"). */
export const FAILED_VERDICT = 3;

const rowName = (r: PolicyRow) => `${r.backend}/${r.familyClass}/${r.tier}`;

/** A POLICY row from `TIER` (the CPU image row of that tier) or `BACKEND/CLASS/TIER`. */
export function policyRowOf(text: string, flag: string): PolicyRow {
  const parts = text.split('/');
  const [backend, familyClass, tier] = parts.length === 1 ? ['cpu', 'image', parts[0]] : parts;
  const row =
    parts.length === 1 || parts.length === 3
      ? POLICY.find((r) => r.backend === backend && r.familyClass === familyClass && r.tier === tier)
      : undefined;
  if (!row)
    throw new UserError(`${flag} ${text}: not a policy row; give a tier (f32, f16, q8, q8-row, low-bit) or one of ${POLICY.map(rowName).join(', ')}`);
  return row;
}

/** A non-empty float32 .npy file, or a one-line refusal that names it (`what`: the path, or `--flag PATH`). */
export function readFloatArray(path: string, what: string, flag?: string): { data: Float32Array; shape: number[] } {
  checkInputFile(path, flag);
  let npy: NpyArray;
  try {
    npy = readNpy(path);
  } catch (err) {
    if (!isUserFacing(err)) throw err;
    throw new UserError(`${what}: ${(err as Error).message}`);
  }
  if (npy.dtype !== 'float32' || npy.shape.length === 0 || npy.data.length === 0)
    throw new UserError(`${what}: expected a non-empty float32 array, got ${npy.dtype} [${npy.shape.join(', ')}]`);
  return { data: npy.data as Float32Array, shape: [...npy.shape] };
}

/**
 * The verdict on `actual` against the reference `expected`, both of `shape`: each row along the
 * last axis is a token, so [K, T, D] is K·T tokens of D values.
 */
export function tokenVerdict(row: PolicyRow, actual: Float32Array, expected: Float32Array, shape: readonly number[]): Verdict {
  return judge(row, compareTokens(actual, expected, shape[shape.length - 1]!));
}

/** Refuses two shapes that differ, in one line. */
export function checkSameShape(a: readonly number[], b: readonly number[], what: string): void {
  if (a.length !== b.length || a.some((d, i) => d !== b[i]))
    throw new UserError(`${what}: shapes differ: [${a.join(', ')}] against [${b.join(', ')}]`);
}

/** The verdict as one JSON object: the row, the numbers, the bars' failures. */
export function verdictJson(v: Verdict, shape: readonly number[]): Record<string, unknown> {
  const m = v.metrics;
  return {
    pass: v.pass,
    row: rowName(v.row),
    shape,
    tokens: m.tokens,
    minCos: m.minCos,
    medianCos: m.medianCos,
    worstToken: m.worstToken,
    relMax: m.relMax,
    relBound: v.row.relMaxFactor === null ? null : v.row.relMaxFactor * relBound(m.tokens),
    failures: v.failures,
  };
}
