// PCA of an encoder's patch tokens as an RGB picture: the first three principal components of the
// patch features, scaled to 0..255, laid out on the patch grid and upsampled bilinearly to the
// pixels the patches cover. One implementation, used by `jepa features --pca` and POST /v1/features.
//
// The rule (docs/web.md states it for users):
// - tokens: the item's patch tokens; prefix tokens (CLS, registers) are left out. A video (or a
//   still given to a video family) has t time slices of h × w tokens: they are averaged over time,
//   position by position, into one h × w grid first.
// - centre each feature on its mean over the grid; the principal axes are the top three eigenvectors
//   of the covariance Xcᵀ·Xc / (n − 1), in float64. Where min(n, D) ≤ 64, exactly: every eigenpair of
//   the D × D covariance (D ≤ n) or of the n × n Gram matrix Xc·Xcᵀ / (n − 1), whose eigenvectors u
//   give the axes Xcᵀ·u / ‖Xcᵀ·u‖ (Householder and implicit QL, EISPACK tred2 / tql2). Larger, by a
//   block Krylov iteration (top-eigen.ts) that applies the covariance as Xcᵀ·(Xc·v) (the Gram matrix
//   as Xc·(Xcᵀ·u) where n < D) without forming it, from a fixed start (a seeded generator's
//   combinations), until each axis' residual is below 1e-11 of the largest variance or 256 vectors
//   have been applied.
// - sign: each axis is flipped so that its loading of largest magnitude is positive (the first such
//   loading when two tie).
// - scale: each component's scores s = Xc·v are mapped with their 1st and 99th percentiles (linear
//   interpolation between order statistics, numpy's default) to 0 and 255, clamped; a component
//   whose percentiles are equal (fewer than three non-zero components) is 0 everywhere.
//   Component 1 is red, 2 green, 3 blue.
// - upsample: bilinear with half-pixel centres (PyTorch's align_corners=False, edges clamped) from
//   the grid to (h·P) × (w·P) pixels, on the scaled values; each is then rounded to the nearest
//   integer (halves up).

import { symmetricEigen } from './symmetric-eigen.js';
import { type BlockOperator, topEigen } from './top-eigen.js';

export interface TokenGridShape {
  t: number;
  h: number;
  w: number;
}

export interface PatchPca {
  /** The grid the map is laid out on (after the time average: one slice). */
  h: number;
  w: number;
  /** [3, dim] float64: the principal axes, unit length, sign fixed. */
  axes: Float64Array;
  /** The three largest eigenvalues of the covariance (variance along each axis). */
  variances: [number, number, number];
  /** Their share of the total variance. */
  explained: [number, number, number];
  /** [h·w, 3] float64: the scores along each axis. */
  scores: Float64Array;
  /** [h·w, 3] float64: the scores scaled to 0..255 by the percentile rule (not rounded). */
  scaled: Float64Array;
}

export interface RgbMap {
  width: number;
  height: number;
  /** [height, width, 3] row-major, 8-bit RGB. */
  rgb: Uint8Array;
}

/**
 * Patch tokens of one item → the [h·w, dim] float64 matrix the PCA is fitted on: prefix tokens
 * dropped, time slices averaged position by position.
 */
export function patchMatrix(tokens: Float32Array, nTokens: number, dim: number, prefix: number, grid: TokenGridShape): Float64Array {
  const { t, h, w } = grid;
  const n = h * w;
  if (nTokens - prefix !== t * n)
    throw new RangeError(`${nTokens - prefix} patch tokens do not fill a ${t}×${h}×${w} grid (prefix ${prefix} of ${nTokens})`);
  if (tokens.length < nTokens * dim) throw new RangeError(`tokens hold ${tokens.length} values, fewer than ${nTokens}×${dim}`);
  const x = new Float64Array(n * dim);
  for (let s = 0; s < t; s++)
    for (let p = 0; p < n; p++) {
      const src = (prefix + s * n + p) * dim;
      const dst = p * dim;
      for (let d = 0; d < dim; d++) x[dst + d] += tokens[src + d]!;
    }
  if (t > 1) for (let i = 0; i < x.length; i++) x[i] = x[i]! / t;
  return x;
}

/** PCA of an [n, dim] matrix (row-major float64) as the module comment says; n = h·w. */
export function pcaRgb(x: Float64Array, h: number, w: number, dim: number): PatchPca {
  const n = h * w;
  if (x.length !== n * dim) throw new RangeError(`expected ${n}×${dim} values, got ${x.length}`);
  if (n < 2) throw new RangeError('a PCA needs at least two patch tokens');
  const mean = new Float64Array(dim);
  for (let i = 0; i < n; i++) for (let d = 0; d < dim; d++) mean[d] += x[i * dim + d]!;
  for (let d = 0; d < dim; d++) mean[d] = mean[d]! / n;
  const xc = new Float64Array(n * dim);
  for (let i = 0; i < n; i++) for (let d = 0; d < dim; d++) xc[i * dim + d] = x[i * dim + d]! - mean[d]!;
  const k = Math.min(3, dim);
  let total = 0;
  for (let i = 0; i < xc.length; i++) total += xc[i]! * xc[i]!;
  total /= n - 1;
  const axes = new Float64Array(3 * dim);
  const variances: [number, number, number] = [0, 0, 0];
  const options = { block: PCA_BLOCK, applyCost: 2 * n * dim };
  if (Math.min(n, dim) <= DENSE_MAX) {
    const top = denseTop(xc, n, dim, k);
    axes.set(top.axes);
    for (let j = 0; j < k; j++) variances[j] = top.variances[j]!;
  } else if (dim <= n) {
    const top = topEigen(covarianceOperator(xc, n, dim), dim, k, startBlock(xc, n, dim, PCA_BLOCK), options);
    axes.set(top.vectors);
    for (let j = 0; j < k; j++) variances[j] = top.values[j]!;
  } else {
    // fewer tokens than features: the same eigenvalues from the n × n Gram matrix Xc·Xcᵀ / (n − 1),
    // whose eigenvectors u give the axes Xcᵀ·u / ‖Xcᵀ·u‖ (the basis vectors are n long, not D)
    const top = topEigen(gramOperator(xc, n, dim), n, k, gramStartBlock(xc, n, dim, PCA_BLOCK), options);
    for (let j = 0; j < k; j++) {
      variances[j] = top.values[j]!;
      const axis = axes.subarray(j * dim, (j + 1) * dim);
      for (let i = 0; i < n; i++) {
        const u = top.vectors[j * n + i]!;
        if (u !== 0) for (let d = 0; d < dim; d++) axis[d] += u * xc[i * dim + d]!;
      }
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += axis[d]! * axis[d]!;
      norm = Math.sqrt(norm);
      for (let d = 0; d < dim; d++) axis[d] = norm > 0 ? axis[d]! / norm : 0;
    }
  }
  // sign: the loading of largest magnitude positive
  for (let j = 0; j < k; j++) {
    let best = 0;
    for (let d = 1; d < dim; d++) if (Math.abs(axes[j * dim + d]!) > Math.abs(axes[j * dim + best]!)) best = d;
    if (axes[j * dim + best]! < 0) for (let d = 0; d < dim; d++) axes[j * dim + d] = -axes[j * dim + d]!;
  }
  const scores = new Float64Array(n * 3);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < k; j++) {
      let s = 0;
      for (let d = 0; d < dim; d++) s += xc[i * dim + d]! * axes[j * dim + d]!;
      scores[i * 3 + j] = s;
    }
  const scaled = new Float64Array(n * 3);
  for (let j = 0; j < 3; j++) {
    const col = Float64Array.from({ length: n }, (_, i) => scores[i * 3 + j]!).sort();
    const lo = percentile(col, 1);
    const hi = percentile(col, 99);
    const span = hi - lo;
    for (let i = 0; i < n; i++) scaled[i * 3 + j] = span > 0 ? 255 * Math.min(1, Math.max(0, (scores[i * 3 + j]! - lo) / span)) : 0;
  }
  const explained = variances.map((v) => (total > 0 ? v / total : 0)) as [number, number, number];
  return { h, w, axes, variances, explained, scores, scaled };
}

/** Up to this many tokens or features the covariance (or Gram) matrix is formed and decomposed whole. */
const DENSE_MAX = 64;

/**
 * The top k axes and variances of a small problem, exactly: every eigenpair of the D × D covariance
 * (D ≤ n) or of the n × n Gram matrix (axes Xcᵀ·u / ‖Xcᵀ·u‖), by tred2/tql2.
 */
function denseTop(xc: Float64Array, n: number, dim: number, k: number): { axes: Float64Array; variances: number[] } {
  const axes = new Float64Array(k * dim);
  const variances: number[] = [];
  if (dim <= n) {
    const c = new Float64Array(dim * dim);
    for (let i = 0; i < n; i++) {
      const row = i * dim;
      for (let a = 0; a < dim; a++) {
        const va = xc[row + a]!;
        if (va === 0) continue;
        for (let b = a; b < dim; b++) c[a * dim + b] += va * xc[row + b]!;
      }
    }
    for (let a = 0; a < dim; a++)
      for (let b = a; b < dim; b++) {
        const v = c[a * dim + b]! / (n - 1);
        c[a * dim + b] = v;
        c[b * dim + a] = v;
      }
    const { values, vectors } = symmetricEigen(c, dim);
    for (let j = 0; j < k; j++) {
      variances.push(Math.max(values[dim - 1 - j]!, 0));
      for (let d = 0; d < dim; d++) axes[j * dim + d] = vectors[d * dim + dim - 1 - j]!;
    }
    return { axes, variances };
  }
  const g = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      let s = 0;
      for (let d = 0; d < dim; d++) s += xc[i * dim + d]! * xc[j * dim + d]!;
      g[i * n + j] = s / (n - 1);
      g[j * n + i] = s / (n - 1);
    }
  const { values, vectors } = symmetricEigen(g, n);
  for (let j = 0; j < k; j++) {
    const col = n - 1 - j;
    variances.push(Math.max(values[col]!, 0));
    // an axis of (numerically) zero variance stays zero: its scores are 0, not rounding noise
    if (!(values[col]! > 0)) continue;
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += xc[i * dim + d]! * vectors[i * n + col]!;
      axes[j * dim + d] = s;
      norm += s * s;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < dim; d++) axes[j * dim + d] = norm > 0 ? axes[j * dim + d]! / norm : 0;
  }
  return { axes, variances };
}

/** Vectors the covariance is applied to at once. */
const PCA_BLOCK = 4;

/** out_j = Xcᵀ·(Xc·v_j) / (n − 1): the covariance applied without forming it, one pass over Xc's rows. */
function covarianceOperator(xc: Float64Array, n: number, dim: number): BlockOperator {
  const spare = new Float64Array(dim);
  return (v, b, out) => {
    out.fill(0);
    const scale = 1 / (n - 1);
    // four vectors per sweep of a row (each row read twice per four vectors, not twice per vector);
    // lanes past the block's end read vector j and write to a spare row
    for (let j = 0; j < b; j += 4) {
      const lane = (l: number) =>
        (j + l < b
          ? [v.subarray((j + l) * dim, (j + l + 1) * dim), out.subarray((j + l) * dim, (j + l + 1) * dim)]
          : [v.subarray(j * dim, (j + 1) * dim), spare]) as [Float64Array, Float64Array];
      const [v0, u0] = lane(0);
      const [v1, u1] = lane(1);
      const [v2, u2] = lane(2);
      const [v3, u3] = lane(3);
      for (let i = 0; i < n; i++) {
        const row = i * dim;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let d = 0; d < dim; d++) {
          const x = xc[row + d]!;
          s0 += x * v0[d]!;
          s1 += x * v1[d]!;
          s2 += x * v2[d]!;
          s3 += x * v3[d]!;
        }
        s0 *= scale;
        s1 *= scale;
        s2 *= scale;
        s3 *= scale;
        for (let d = 0; d < dim; d++) {
          const x = xc[row + d]!;
          u0[d] += s0 * x;
          u1[d] += s1 * x;
          u2[d] += s2 * x;
          u3[d] += s3 * x;
        }
      }
    }
  };
}

/** out_j = Xc·(Xcᵀ·u_j) / (n − 1): the Gram matrix applied without forming it. */
function gramOperator(xc: Float64Array, n: number, dim: number): BlockOperator {
  const w = new Float64Array(dim);
  return (u, b, out) => {
    for (let j = 0; j < b; j++) {
      w.fill(0);
      for (let i = 0; i < n; i++) {
        const a = u[j * n + i]!;
        if (a === 0) continue;
        const row = i * dim;
        for (let d = 0; d < dim; d++) w[d] += a * xc[row + d]!;
      }
      for (let i = 0; i < n; i++) {
        const row = i * dim;
        let s = 0;
        for (let d = 0; d < dim; d++) s += xc[row + d]! * w[d]!;
        out[j * n + i] = s / (n - 1);
      }
    }
  };
}

/** The Gram path's fixed start: b vectors Xc·g, g from the seeded generator, in the Gram matrix's range. */
function gramStartBlock(xc: Float64Array, n: number, dim: number, b: number): Float64Array {
  const g = seeded();
  const out = new Float64Array(b * n);
  for (let j = 0; j < b; j++) {
    const h = Float64Array.from({ length: dim }, g);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let d = 0; d < dim; d++) s += xc[i * dim + d]! * h[d]!;
      out[j * n + i] = s;
    }
  }
  return out;
}

/** Uniform numbers in [-1, 1) from a fixed seed: the start of every PCA, so the same tokens give the same bits. */
function seeded(): () => number {
  let s = 0x9e3779b9;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

/** The fixed start: b combinations Xcᵀ·g of the centred rows, g from a seeded generator (no randomness between runs). */
function startBlock(xc: Float64Array, n: number, dim: number, b: number): Float64Array {
  const next = seeded();
  const out = new Float64Array(b * dim);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < b; j++) {
      const g = next();
      for (let d = 0; d < dim; d++) out[j * dim + d] += g * xc[i * dim + d]!;
    }
  return out;
}

/** numpy.percentile(sorted, q) with the default "linear" method; `sorted` ascending. */
export function percentile(sorted: Float64Array, q: number): number {
  const pos = ((sorted.length - 1) * q) / 100;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * [gh, gw, 3] values → [height, width, 3] 8-bit RGB: bilinear with half-pixel centres
 * (align_corners=False), edges clamped, rounded to nearest (halves up), clamped to 0..255.
 */
export function upsampleBilinear(values: Float64Array, gh: number, gw: number, height: number, width: number): Uint8Array {
  const out = new Uint8Array(height * width * 3);
  const axis = (i: number, src: number, dst: number) => {
    const f = Math.min(Math.max(((i + 0.5) * src) / dst - 0.5, 0), src - 1);
    const i0 = Math.floor(f);
    return { i0, i1: Math.min(i0 + 1, src - 1), a: f - i0 };
  };
  const xs = Array.from({ length: width }, (_, x) => axis(x, gw, width));
  for (let y = 0; y < height; y++) {
    const { i0: y0, i1: y1, a: ay } = axis(y, gh, height);
    for (let x = 0; x < width; x++) {
      const { i0: x0, i1: x1, a: ax } = xs[x]!;
      for (let c = 0; c < 3; c++) {
        const v00 = values[(y0 * gw + x0) * 3 + c]!;
        const v01 = values[(y0 * gw + x1) * 3 + c]!;
        const v10 = values[(y1 * gw + x0) * 3 + c]!;
        const v11 = values[(y1 * gw + x1) * 3 + c]!;
        const v = (1 - ay) * ((1 - ax) * v00 + ax * v01) + ay * ((1 - ax) * v10 + ax * v11);
        out[(y * width + x) * 3 + c] = Math.min(255, Math.max(0, Math.floor(v + 0.5)));
      }
    }
  }
  return out;
}

/**
 * The whole map of one item: its patch tokens ([nTokens, dim], prefix first) on `grid`, upsampled
 * to (grid.h·patch) × (grid.w·patch).
 */
export function patchPcaMap(
  tokens: Float32Array,
  nTokens: number,
  dim: number,
  prefix: number,
  grid: TokenGridShape,
  patch: number,
): PatchPca & { map: RgbMap } {
  const x = patchMatrix(tokens, nTokens, dim, prefix, grid);
  const pca = pcaRgb(x, grid.h, grid.w, dim);
  const height = grid.h * patch;
  const width = grid.w * patch;
  return { ...pca, map: { width, height, rgb: upsampleBilinear(pca.scaled, grid.h, grid.w, height, width) } };
}
