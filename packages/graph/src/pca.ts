// PCA of an encoder's patch tokens as an RGB picture: the first three principal components of the
// patch features, scaled to 0..255, laid out on the patch grid and upsampled bilinearly to the
// pixels the patches cover. One implementation, used by `jepa features --pca` and POST /v1/features.
//
// The rule (docs/web.md states it for users):
// - tokens: the item's patch tokens; prefix tokens (CLS, registers) are left out. A video (or a
//   still given to a video family) has t time slices of h × w tokens: they are averaged over time,
//   position by position, into one h × w grid first.
// - centre each feature on its mean over the grid; the principal axes are the eigenvectors of the
//   covariance Xcᵀ·Xc / (n − 1), computed exactly in float64 (Householder tridiagonalisation and
//   implicit QL, as EISPACK tred2 / tql2): on the D × D covariance when D ≤ n, else on the n × n
//   Gram matrix Xc·Xcᵀ / (n − 1), whose eigenvectors u give the same axes as Xcᵀ·u / ‖Xcᵀ·u‖.
// - sign: each axis is flipped so that its loading of largest magnitude is positive (the first such
//   loading when two tie).
// - scale: each component's scores s = Xc·v are mapped with their 1st and 99th percentiles (linear
//   interpolation between order statistics, numpy's default) to 0 and 255, clamped; a component
//   whose percentiles are equal (fewer than three non-zero components) is 0 everywhere.
//   Component 1 is red, 2 green, 3 blue.
// - upsample: bilinear with half-pixel centres (PyTorch's align_corners=False, edges clamped) from
//   the grid to (h·P) × (w·P) pixels, on the scaled values; each is then rounded to the nearest
//   integer (halves up).

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
  const xc = new Float64Array(x);
  for (let d = 0; d < dim; d++) {
    let m = 0;
    for (let i = 0; i < n; i++) m += xc[i * dim + d]!;
    m /= n;
    for (let i = 0; i < n; i++) xc[i * dim + d] = xc[i * dim + d]! - m;
  }
  const k = Math.min(3, dim);
  const axes = new Float64Array(3 * dim);
  const variances: [number, number, number] = [0, 0, 0];
  let total = 0;
  if (dim <= n) {
    const c = new Float64Array(dim * dim);
    for (let i = 0; i < n; i++) {
      const row = i * dim;
      for (let a = 0; a < dim; a++) {
        const va = xc[row + a]!;
        if (va === 0) continue;
        const ca = a * dim;
        for (let b = a; b < dim; b++) c[ca + b] += va * xc[row + b]!;
      }
    }
    for (let a = 0; a < dim; a++)
      for (let b = a; b < dim; b++) {
        const v = c[a * dim + b]! / (n - 1);
        c[a * dim + b] = v;
        c[b * dim + a] = v;
      }
    const { values, vectors } = symmetricEigen(c, dim);
    for (let j = 0; j < dim; j++) total += Math.max(values[j]!, 0);
    for (let j = 0; j < k; j++) {
      const col = dim - 1 - j;
      variances[j] = Math.max(values[col]!, 0);
      for (let d = 0; d < dim; d++) axes[j * dim + d] = vectors[d * dim + col]!;
    }
  } else {
    const g = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = i; j < n; j++) {
        let s = 0;
        for (let d = 0; d < dim; d++) s += xc[i * dim + d]! * xc[j * dim + d]!;
        g[i * n + j] = s / (n - 1);
        g[j * n + i] = s / (n - 1);
      }
    const { values, vectors } = symmetricEigen(g, n);
    for (let j = 0; j < n; j++) total += Math.max(values[j]!, 0);
    for (let j = 0; j < k; j++) {
      const col = n - 1 - j;
      variances[j] = Math.max(values[col]!, 0);
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

/**
 * Eigen-decomposition of a symmetric n × n matrix (row-major float64): eigenvalues ascending, and
 * the eigenvectors as the columns of `vectors` (row-major). Householder reduction to tridiagonal
 * form, then the implicit QL method (EISPACK tred2 / tql2, after the public-domain JAMA version).
 */
export function symmetricEigen(a: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  // U holds Vᵀ (A is symmetric, so it starts as A): tred2's inner loops run down V's columns, which
  // are U's contiguous rows; and tql2 rotates pairs of V's columns, again U's rows
  const U = new Float64Array(a);
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  const at = (i: number, j: number) => U[j * n + i]!;
  const set = (i: number, j: number, v: number) => {
    U[j * n + i] = v;
  };
  // tred2
  for (let j = 0; j < n; j++) d[j] = at(n - 1, j);
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]!);
    if (scale === 0) {
      e[i] = d[i - 1]!;
      for (let j = 0; j < i; j++) {
        d[j] = at(i - 1, j);
        set(i, j, 0);
        set(j, i, 0);
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] = d[k]! / scale;
        h += d[k]! * d[k]!;
      }
      let f = d[i - 1]!;
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        set(j, i, f);
        g = e[j]! + at(j, j) * f;
        const col = j * n;
        for (let k = j + 1; k <= i - 1; k++) {
          const u = U[col + k]!;
          g += u * d[k]!;
          e[k] = e[k]! + u * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] = e[j]! / h;
        f += e[j]! * d[j]!;
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] = e[j]! - hh * d[j]!;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        g = e[j]!;
        const col = j * n;
        for (let k = j; k <= i - 1; k++) U[col + k] = U[col + k]! - (f * e[k]! + g * d[k]!);
        d[j] = at(i - 1, j);
        set(i, j, 0);
      }
    }
    d[i] = h;
  }
  for (let i = 0; i < n - 1; i++) {
    set(n - 1, i, at(i, i));
    set(i, i, 1);
    const h = d[i + 1]!;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = at(k, i + 1) / h;
      const next = (i + 1) * n;
      for (let j = 0; j <= i; j++) {
        const col = j * n;
        let g = 0;
        for (let k = 0; k <= i; k++) g += U[next + k]! * U[col + k]!;
        for (let k = 0; k <= i; k++) U[col + k] = U[col + k]! - g * d[k]!;
      }
    }
    for (let k = 0; k <= i; k++) set(k, i + 1, 0);
  }
  for (let j = 0; j < n; j++) {
    d[j] = at(n - 1, j);
    set(n - 1, j, 0);
  }
  set(n - 1, n - 1, 1);
  e[0] = 0;
  // tql2, its rotations on two contiguous rows of W = Vᵀ
  const W = U;
  for (let i = 1; i < n; i++) e[i - 1] = e[i]!;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]!) + Math.abs(e[l]!));
    let m = l;
    while (m < n - 1 && Math.abs(e[m]!) > eps * tst1) m++;
    if (m > l) {
      let iter = 0;
      do {
        if (++iter > 100) throw new Error('symmetricEigen: no convergence');
        let g = d[l]!;
        let p = (d[l + 1]! - g) / (2 * e[l]!);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l]! / (p + r);
        d[l + 1] = e[l]! * (p + r);
        const dl1 = d[l + 1]!;
        let h = g - d[l]!;
        for (let i = l + 2; i < n; i++) d[i] = d[i]! - h;
        f += h;
        p = d[m]!;
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1]!;
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i]!;
          h = c * p;
          r = Math.hypot(p, e[i]!);
          e[i + 1] = s * r;
          s = e[i]! / r;
          c = p / r;
          p = c * d[i]! - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]!);
          const ri = i * n;
          const rj = ri + n;
          for (let k = 0; k < n; k++) {
            h = W[rj + k]!;
            W[rj + k] = s * W[ri + k]! + c * h;
            W[ri + k] = c * W[ri + k]! - s * h;
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]!) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]!) > eps * tst1);
    }
    d[l] = d[l]! + f;
    e[l] = 0;
  }
  // ascending, vectors with them
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => d[i]! - d[j]! || i - j);
  const values = Float64Array.from(order, (i) => d[i]!);
  const vectors = new Float64Array(n * n);
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) vectors[r * n + c] = W[order[c]! * n + r]!;
  return { values, vectors };
}
