// The largest eigenpairs of a symmetric positive semi-definite operator that is only applied, never
// formed: a block Krylov (block Lanczos) basis with full reorthogonalisation, Rayleigh–Ritz on it,
// thick restarts from the best Ritz vectors, and a bounded number of operator applications. Where
// the basis reaches the operator's rank (small problems) the space is exhausted and the answer is
// the exact decomposition; otherwise it stops once each wanted Ritz pair's residual is below
// `tol` × the largest eigenvalue, or when the budget is spent.
import { symmetricEigen } from './symmetric-eigen.js';

/** out (b rows of dim) = A · v (b rows of dim). */
export type BlockOperator = (v: Float64Array, b: number, out: Float64Array) => void;

export interface TopEigenOptions {
  /** Vectors the operator is applied to at once (default 4). */
  block?: number;
  /** Most basis vectors held at once before a restart (default 64). */
  maxBasis?: number;
  /** Most vectors the operator is applied to in all (default 256): the bound on the work. */
  maxApplied?: number;
  /** Wanted residual ‖A·x − θ·x‖ over the largest eigenvalue (default 1e-11). */
  tol?: number;
  /**
   * Multiply-adds one application of the operator to one vector costs (default: unknown, Infinity).
   * The Ritz pairs are checked once the applications since the last check cost as much as a check:
   * every step for a costly operator, every few for a cheap one, so a small problem is not all
   * Rayleigh–Ritz. A count, not a clock: the same input stops at the same step.
   */
  applyCost?: number;
}

export interface TopEigen {
  /** [k] descending; 0 beyond the operator's rank. */
  values: Float64Array;
  /** [k, dim] unit rows (zero rows beyond the rank). */
  vectors: Float64Array;
  /** Vectors the operator was applied to. */
  applied: number;
  /** Whether every wanted pair met the tolerance (or the space was exhausted). */
  converged: boolean;
}

const DEFLATE = 1e-10;

/**
 * The k largest eigenpairs of `apply`, a symmetric PSD operator on vectors of `dim`, from the
 * `start` block (rows of dim, deterministic: the same start gives the same bits).
 */
export function topEigen(apply: BlockOperator, dim: number, k: number, start: Float64Array, options: TopEigenOptions = {}): TopEigen {
  const b = options.block ?? 4;
  const cap = Math.min(dim, Math.max(options.maxBasis ?? 64, 2 * (k + b)));
  const maxApplied = options.maxApplied ?? 256;
  const tol = options.tol ?? 1e-11;
  const applyCost = options.applyCost ?? Number.POSITIVE_INFINITY;
  const Q = new Float64Array(cap * dim);
  const AQ = new Float64Array(cap * dim);
  const T = new Float64Array(cap * cap);
  let m = 0;
  let applied = 0;
  let block = start;
  let rows = start.length / dim;
  let ritz: { values: Float64Array; y: Float64Array } = { values: new Float64Array(0), y: new Float64Array(0) };
  let converged = false;
  let spent = 0;
  let checkedAt = -1;
  const check = () => {
    ritz = rayleighRitz(T, cap, m);
    checkedAt = m;
    spent = 0;
  };

  for (;;) {
    // orthonormalise the block against the basis and itself (twice: classical Gram–Schmidt loses
    // orthogonality once); a row left with almost nothing of its own is dropped
    const first = m;
    for (let r = 0; r < rows && m < cap; r++) {
      const v = Q.subarray(m * dim, (m + 1) * dim);
      v.set(block.subarray(r * dim, (r + 1) * dim));
      const before = norm(v);
      if (before === 0) continue;
      for (let pass = 0; pass < 2; pass++)
        for (let j = 0; j < m; j++) {
          const q = Q.subarray(j * dim, (j + 1) * dim);
          axpy(-dot(q, v), q, v);
        }
      const after = norm(v);
      if (after <= DEFLATE * before) {
        v.fill(0);
        continue;
      }
      for (let d = 0; d < dim; d++) v[d] = v[d]! / after;
      m++;
    }
    const added = m - first;
    if (added === 0) {
      // the Krylov space is invariant: the Ritz pairs are exact
      if (checkedAt !== m) check();
      converged = true;
      break;
    }
    apply(Q.subarray(first * dim, m * dim), added, AQ.subarray(first * dim, m * dim));
    applied += added;
    spent += added * applyCost;
    for (let i = first; i < m; i++)
      for (let j = 0; j <= i; j++) {
        const t =
          0.5 *
          (dot(Q.subarray(i * dim, (i + 1) * dim), AQ.subarray(j * dim, (j + 1) * dim)) +
            dot(Q.subarray(j * dim, (j + 1) * dim), AQ.subarray(i * dim, (i + 1) * dim)));
        T[i * cap + j] = t;
        T[j * cap + i] = t;
      }
    const due = spent >= 10 * m ** 3 + 2 * k * m * dim || m >= cap || m >= dim || applied >= maxApplied;
    if (due) {
      check();
      if (m >= dim || residualsBelow(Q, AQ, ritz, m, dim, k, tol)) {
        converged = true;
        break;
      }
    }
    if (applied >= maxApplied) break;
    if (m >= cap) {
      // thick restart: the best half of the Ritz vectors become the basis, T their eigenvalues
      const keep = Math.max(k, Math.floor(cap / 2));
      const X = new Float64Array(keep * dim);
      const AX = new Float64Array(keep * dim);
      for (let c = 0; c < keep; c++) {
        combine(Q, ritz.y, m, c, dim, X.subarray(c * dim, (c + 1) * dim));
        combine(AQ, ritz.y, m, c, dim, AX.subarray(c * dim, (c + 1) * dim));
      }
      Q.set(X);
      AQ.set(AX);
      T.fill(0);
      for (let c = 0; c < keep; c++) T[c * cap + c] = ritz.values[c]!;
      m = keep;
      // the next block: A applied to the kept vectors with the most residual left
      block = new Float64Array(b * dim);
      for (let r = 0; r < b; r++) block.set(AX.subarray(r * dim, (r + 1) * dim), r * dim);
      rows = b;
      continue;
    }
    block = AQ.slice(first * dim, m * dim);
    rows = added;
  }

  const values = new Float64Array(k);
  const vectors = new Float64Array(k * dim);
  const have = Math.min(k, ritz.values.length);
  for (let c = 0; c < have; c++) {
    values[c] = Math.max(ritz.values[c]!, 0);
    combine(Q, ritz.y, m, c, dim, vectors.subarray(c * dim, (c + 1) * dim));
    const n = norm(vectors.subarray(c * dim, (c + 1) * dim));
    for (let d = 0; d < dim; d++) vectors[c * dim + d] = n > 0 ? vectors[c * dim + d]! / n : 0;
  }
  return { values, vectors, applied, converged };
}

/** T's leading m × m block → its eigenpairs, largest first: values [m] and y [m, m] (row c = the coefficients of pair c). */
function rayleighRitz(T: Float64Array, cap: number, m: number): { values: Float64Array; y: Float64Array } {
  const t = new Float64Array(m * m);
  for (let i = 0; i < m; i++) t.set(T.subarray(i * cap, i * cap + m), i * m);
  const eig = symmetricEigen(t, m);
  const values = new Float64Array(m);
  const y = new Float64Array(m * m);
  for (let c = 0; c < m; c++) {
    const col = m - 1 - c;
    values[c] = eig.values[col]!;
    for (let i = 0; i < m; i++) y[c * m + i] = eig.vectors[i * m + col]!;
  }
  return { values, y };
}

function residualsBelow(
  Q: Float64Array,
  AQ: Float64Array,
  ritz: { values: Float64Array; y: Float64Array },
  m: number,
  dim: number,
  k: number,
  tol: number,
): boolean {
  const top = Math.max(ritz.values[0] ?? 0, 0);
  if (top === 0) return true;
  const x = new Float64Array(dim);
  const ax = new Float64Array(dim);
  for (let c = 0; c < Math.min(k, m); c++) {
    combine(Q, ritz.y, m, c, dim, x);
    combine(AQ, ritz.y, m, c, dim, ax);
    axpy(-ritz.values[c]!, x, ax);
    if (norm(ax) > tol * top) return false;
  }
  return true;
}

/** out = Σ_i y[c, i] · rows[i]. */
function combine(rows: Float64Array, y: Float64Array, m: number, c: number, dim: number, out: Float64Array): void {
  out.fill(0);
  for (let i = 0; i < m; i++) {
    const a = y[c * m + i]!;
    if (a !== 0) axpy(a, rows.subarray(i * dim, (i + 1) * dim), out);
  }
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function norm(a: Float64Array): number {
  return Math.sqrt(dot(a, a));
}

/** y += a · x */
function axpy(a: number, x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < x.length; i++) y[i] = y[i]! + a * x[i]!;
}
