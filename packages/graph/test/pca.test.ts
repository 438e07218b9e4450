// The PCA map of patch features (src/pca.ts) against matrices built in float64 here with known
// principal axes: points mean + Σ σ_k z_k q_k, with q_k the columns of a Householder reflection
// (orthonormal) and z_k zero-mean, mutually orthogonal score columns (Gram–Schmidt in this file).
// The axes, variances, scores, the percentile scaling and the bilinear upsampling are each
// checked against values computed here, plus negative controls the same judge must refuse.
import { describe, expect, it } from 'vitest';
import { patchMatrix, patchPcaMap, pcaRgb, symmetricEigen, topEigen, upsampleBilinear, type PatchPca } from '../src/index.js';

/** Deterministic uniform numbers in [-1, 1). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

/** The D × D Householder reflection I − 2vvᵀ/vᵀv: symmetric, orthonormal; its columns are the axes. */
function householder(v: number[]): number[][] {
  const vv = v.reduce((s, x) => s + x * x, 0);
  return v.map((vi, i) => v.map((vj, j) => (i === j ? 1 : 0) - (2 * vi * vj) / vv));
}

/** n zero-mean, mutually orthogonal columns of unit variance (Σ z² = n − 1), from seeded noise. */
function scoreColumns(n: number, k: number, seed: number): number[][] {
  const rnd = lcg(seed);
  const cols: number[][] = [];
  for (let c = 0; c < k; c++) {
    let z = Array.from({ length: n }, () => rnd() + (c === 0 ? 0.3 * rnd() ** 3 : 0));
    const m = z.reduce((s, x) => s + x, 0) / n;
    z = z.map((x) => x - m);
    for (const q of cols) {
      const dot = z.reduce((s, x, i) => s + x * q[i]!, 0) / q.reduce((s, x) => s + x * x, 0);
      z = z.map((x, i) => x - dot * q[i]!);
    }
    const norm = Math.sqrt(z.reduce((s, x) => s + x * x, 0) / (n - 1));
    cols.push(z.map((x) => x / norm));
  }
  return cols;
}

interface Reference {
  x: Float64Array;
  axes: number[][];
  variances: number[];
  scores: number[][];
}

/** n points in D dimensions with principal axes q_1.. (sign by the largest-loading rule) and variances σ². */
function reference(n: number, D: number, sigmas: number[], seed: number): Reference {
  const rnd = lcg(seed + 1);
  const Q = householder(Array.from({ length: D }, (_, i) => i + 1 + rnd()));
  const Z = scoreColumns(n, sigmas.length, seed);
  const mean = Array.from({ length: D }, () => 3 * rnd());
  const x = new Float64Array(n * D);
  for (let i = 0; i < n; i++)
    for (let d = 0; d < D; d++) {
      let v = mean[d]!;
      sigmas.forEach((s, k) => {
        v += s * Z[k]![i]! * Q[d]![k]!;
      });
      x[i * D + d] = v;
    }
  const axes: number[][] = [];
  const scores: number[][] = [];
  for (let k = 0; k < 3; k++) {
    const q = Q.map((row) => row[k]!);
    let best = 0;
    q.forEach((v, d) => {
      if (Math.abs(v) > Math.abs(q[best]!)) best = d;
    });
    const sign = q[best]! < 0 ? -1 : 1;
    axes.push(q.map((v) => sign * v));
    scores.push(Z[k]!.map((z) => sign * sigmas[k]! * z));
  }
  return { x, axes, variances: sigmas.slice(0, 3).map((s) => s * s), scores };
}

/** numpy.percentile(a, q), method "linear", written out again. */
function npPercentile(a: number[], q: number): number {
  const s = [...a].sort((p, r) => p - r);
  const h = (s.length - 1) * (q / 100);
  const f = Math.floor(h);
  return f + 1 < s.length ? s[f]! + (h - f) * (s[f + 1]! - s[f]!) : s[f]!;
}

/** The largest difference between what pcaRgb gave and the reference (axes, variances, scores, scaled values). */
function judge(got: PatchPca, ref: Reference, D: number): number {
  let worst = 0;
  const n = ref.scores[0]!.length;
  for (let k = 0; k < 3; k++) {
    for (let d = 0; d < D; d++) worst = Math.max(worst, Math.abs(got.axes[k * D + d]! - ref.axes[k]![d]!));
    worst = Math.max(worst, Math.abs(got.variances[k]! - ref.variances[k]!) / ref.variances[k]!);
    const lo = npPercentile(ref.scores[k]!, 1);
    const hi = npPercentile(ref.scores[k]!, 99);
    for (let i = 0; i < n; i++) {
      worst = Math.max(worst, Math.abs(got.scores[i * 3 + k]! - ref.scores[k]![i]!));
      const want = 255 * Math.min(1, Math.max(0, (ref.scores[k]![i]! - lo) / (hi - lo)));
      worst = Math.max(worst, Math.abs(got.scaled[i * 3 + k]! - want) / 255);
    }
  }
  return worst;
}

const TOL = 1e-9;

describe('pcaRgb against matrices with known principal axes', () => {
  it('D ≤ n (the D × D covariance): 6 × 5 grid, D = 7', () => {
    const ref = reference(30, 7, [5, 3, 2, 0.7, 0.2], 1);
    const got = pcaRgb(ref.x, 6, 5, 7);
    const err = judge(got, ref, 7);
    console.log(`pca D<=n: worst difference from the float64 reference ${err.toExponential(2)} (judged at ${TOL})`);
    expect(err).toBeLessThan(TOL);
    const total = 25 + 9 + 4 + 0.49 + 0.04;
    expect(got.explained[0]).toBeCloseTo(25 / total, 12);
  });

  it('D > n (the n × n Gram matrix): 3 × 4 grid, D = 40', () => {
    const ref = reference(12, 40, [4, 2.5, 1.5, 1, 0.5, 0.25], 2);
    const got = pcaRgb(ref.x, 3, 4, 40);
    const err = judge(got, ref, 40);
    console.log(`pca D>n: worst difference from the float64 reference ${err.toExponential(2)} (judged at ${TOL})`);
    expect(err).toBeLessThan(TOL);
  });

  it('full rank, 400 × 120 (the block Krylov iteration on the covariance stops on its residuals, well before the space is spanned)', () => {
    const sigmas = Array.from({ length: 120 }, (_, i) => 6 / (i + 1) ** 0.7);
    const ref = reference(400, 120, sigmas, 4);
    const got = pcaRgb(ref.x, 20, 20, 120);
    const err = judge(got, ref, 120);
    console.log(`pca full rank: worst difference from the float64 reference ${err.toExponential(2)} (judged at ${TOL})`);
    expect(err).toBeLessThan(TOL);
  });

  it('more features than tokens, 100 × 150 (the Krylov iteration on the Gram matrix, axes Xcᵀ·u)', () => {
    const sigmas = Array.from({ length: 90 }, (_, i) => 5 / (i + 1) ** 0.6);
    const ref = reference(100, 150, sigmas, 6);
    const got = pcaRgb(ref.x, 10, 10, 150);
    const err = judge(got, ref, 150);
    console.log(`pca Gram, full rank: worst difference from the float64 reference ${err.toExponential(2)} (judged at ${TOL})`);
    expect(err).toBeLessThan(TOL);
  });

  it('is deterministic: the same input gives the same bits', () => {
    const ref = reference(20, 9, [3, 2, 1, 0.5], 3);
    const a = pcaRgb(ref.x, 4, 5, 9);
    const b = pcaRgb(new Float64Array(ref.x), 4, 5, 9);
    expect(Buffer.from(a.scaled.buffer).equals(Buffer.from(b.scaled.buffer))).toBe(true);
  });

  it('negative controls: a flipped axis, swapped components, perturbed data and an uncentred fit all fail the judge', () => {
    const ref = reference(30, 7, [5, 3, 2, 0.7, 0.2], 1);
    const got = pcaRgb(ref.x, 6, 5, 7);
    // the sign rule: the reference with axis 2 negated
    const flipped: Reference = { ...ref, axes: ref.axes.map((a, k) => (k === 1 ? a.map((v) => -v) : a)) };
    expect(judge(got, flipped, 7)).toBeGreaterThan(0.1);
    // the order: components 2 and 3 swapped
    const swapped: Reference = {
      ...ref,
      axes: [ref.axes[0]!, ref.axes[2]!, ref.axes[1]!],
      variances: [ref.variances[0]!, ref.variances[2]!, ref.variances[1]!],
      scores: [ref.scores[0]!, ref.scores[2]!, ref.scores[1]!],
    };
    expect(judge(got, swapped, 7)).toBeGreaterThan(0.1);
    // the data: one token moved by 1 % of the first axis' spread
    const moved = new Float64Array(ref.x);
    for (let d = 0; d < 7; d++) moved[d] = moved[d]! + 0.05 * ref.axes[1]![d]!;
    expect(judge(pcaRgb(moved, 6, 5, 7), ref, 7)).toBeGreaterThan(1e-4);
    // no centring: the top eigenvector of the raw second moment, which the mean pulls away
    const raw = new Float64Array(49);
    for (let i = 0; i < 30; i++) for (let a = 0; a < 7; a++) for (let b = 0; b < 7; b++) raw[a * 7 + b] += ref.x[i * 7 + a]! * ref.x[i * 7 + b]!;
    const top = symmetricEigen(raw, 7);
    const uncentred = new Float64Array(3 * 7);
    for (let k = 0; k < 3; k++) {
      const v = Array.from({ length: 7 }, (_, d) => top.vectors[d * 7 + 6 - k]!);
      const big = v.reduce((b, x, d) => (Math.abs(x) > Math.abs(v[b]!) ? d : b), 0);
      for (let d = 0; d < 7; d++) uncentred[k * 7 + d] = v[big]! < 0 ? -v[d]! : v[d]!;
    }
    expect(judge({ ...got, axes: uncentred }, ref, 7)).toBeGreaterThan(1e-3);
  });
});

describe('symmetricEigen', () => {
  it('recovers Q·diag(λ)·Qᵀ: A·v = λ·v, Vᵀ·V = I, λ ascending', () => {
    const n = 24;
    const rnd = lcg(9);
    const Q = householder(Array.from({ length: n }, () => rnd()));
    const lambda = Array.from({ length: n }, (_, i) => (i - 7) * 0.75 + 0.01 * rnd());
    const A = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) A[i * n + j] += Q[i]![k]! * lambda[k]! * Q[j]![k]!;
    const { values, vectors } = symmetricEigen(A, n);
    const sorted = [...lambda].sort((a, b) => a - b);
    let worst = 0;
    for (let c = 0; c < n; c++) {
      worst = Math.max(worst, Math.abs(values[c]! - sorted[c]!));
      for (let i = 0; i < n; i++) {
        let av = 0;
        for (let k = 0; k < n; k++) av += A[i * n + k]! * vectors[k * n + c]!;
        worst = Math.max(worst, Math.abs(av - values[c]! * vectors[i * n + c]!));
      }
      for (let c2 = 0; c2 < n; c2++) {
        let dot = 0;
        for (let k = 0; k < n; k++) dot += vectors[k * n + c]! * vectors[k * n + c2]!;
        worst = Math.max(worst, Math.abs(dot - (c === c2 ? 1 : 0)));
      }
    }
    expect(worst).toBeLessThan(1e-11);
  });
});

describe('topEigen', () => {
  /** A = Q·diag(λ)·Qᵀ applied as a block operator, Q a Householder reflection. */
  function operator(n: number, lambda: number[], seed: number) {
    const rnd = lcg(seed);
    const Q = householder(Array.from({ length: n }, () => rnd()));
    const A = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) A[i * n + j] += Q[i]![k]! * lambda[k]! * Q[j]![k]!;
    const apply = (v: Float64Array, b: number, out: Float64Array) => {
      for (let r = 0; r < b; r++)
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let k = 0; k < n; k++) s += A[i * n + k]! * v[r * n + k]!;
          out[r * n + i] = s;
        }
    };
    const start = Float64Array.from({ length: 4 * n }, () => rnd());
    return { Q, apply, start };
  }

  it('finds the top 3 of a 150-wide spectrum within 1e-9 without spanning the space, and the bound stops it', () => {
    const n = 150;
    const lambda = Array.from({ length: n }, (_, i) => 10 / (i + 1));
    const { Q, apply, start } = operator(n, lambda, 21);
    const top = topEigen(apply, n, 3, start);
    expect(top.converged).toBe(true);
    expect(top.applied).toBeLessThan(n);
    let worst = 0;
    for (let k = 0; k < 3; k++) {
      worst = Math.max(worst, Math.abs(top.values[k]! - lambda[k]!) / lambda[0]!);
      const dot = Q.reduce((s, row, d) => s + row[k]! * top.vectors[k * n + d]!, 0);
      worst = Math.max(worst, 1 - Math.abs(dot));
    }
    console.log(`topEigen: ${top.applied} vectors applied, worst ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-9);
    // the budget: at most maxApplied vectors (plus the block that crossed it), and not converged
    const cut = topEigen(apply, n, 3, start, { maxApplied: 8 });
    expect(cut.applied).toBeLessThanOrEqual(12);
    expect(cut.converged).toBe(false);
    // negative control: the 4th eigenvector is not what was asked for
    const fourth = Q.reduce((s, row, d) => s + row[3]! * top.vectors[0 * n + d]!, 0);
    expect(Math.abs(fourth)).toBeLessThan(1e-6);
  });

  it('a rank-2 operator: two pairs exactly, the third zero', () => {
    const n = 30;
    const lambda = Array.from({ length: n }, (_, i) => (i < 2 ? 5 - i : 0));
    const { apply, start } = operator(n, lambda, 22);
    const top = topEigen(apply, n, 3, start);
    expect(top.converged).toBe(true);
    expect(top.values[0]).toBeCloseTo(5, 12);
    expect(top.values[1]).toBeCloseTo(4, 12);
    expect(Math.abs(top.values[2]!)).toBeLessThan(1e-12);
  });
});

describe('patchMatrix and the map', () => {
  it('drops the prefix tokens and averages the time slices position by position', () => {
    const D = 2;
    // 1 prefix token, then 2 slices of a 1 × 2 grid
    const tokens = Float32Array.from([99, 99, 1, 2, 3, 4, 5, 6, 7, 8]);
    const x = patchMatrix(tokens, 5, D, 1, { t: 2, h: 1, w: 2 });
    expect(Array.from(x)).toEqual([3, 4, 5, 6]);
    expect(() => patchMatrix(tokens, 5, D, 0, { t: 2, h: 1, w: 2 })).toThrow(/do not fill/);
  });

  it('upsamples bilinearly with half-pixel centres, edges clamped (values worked by hand)', () => {
    // one channel used: a 1 × 2 grid [0, 100] to 1 × 4: sources -0.25→0, 0.25, 0.75, 1.25→1
    const v = Float64Array.from([0, 0, 0, 100, 0, 0]);
    const out = upsampleBilinear(v, 1, 2, 1, 4);
    expect([out[0], out[3], out[6], out[9]]).toEqual([0, 25, 75, 100]);
    // 2 × 2 to 4 × 4, the pixel (1, 2): rows 0.25 of the way, columns 0.75
    const g = Float64Array.from([0, 0, 0, 40, 0, 0, 80, 0, 0, 120, 0, 0]);
    const big = upsampleBilinear(g, 2, 2, 4, 4);
    const want = 0.75 * (0.25 * 0 + 0.75 * 40) + 0.25 * (0.25 * 80 + 0.75 * 120);
    expect(big[(1 * 4 + 2) * 3]).toBe(Math.round(want));
  });

  it('patchPcaMap lays the scaled components on the grid at patch × grid pixels, not constant', () => {
    const ref = reference(16, 12, [4, 3, 2, 1], 5);
    const tokens = new Float32Array(17 * 12);
    tokens.set(Float32Array.from(ref.x), 12);
    const { map } = patchPcaMap(tokens, 17, 12, 1, { t: 1, h: 4, w: 4 }, 8);
    expect([map.width, map.height, map.rgb.length]).toEqual([32, 32, 32 * 32 * 3]);
    const colours = new Set<number>();
    for (let i = 0; i < map.rgb.length; i += 3) colours.add((map.rgb[i]! << 16) | (map.rgb[i + 1]! << 8) | map.rgb[i + 2]!);
    expect(colours.size).toBeGreaterThan(100);
  });
});
