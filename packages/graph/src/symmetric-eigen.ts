// The dense symmetric eigen-solver: every eigenpair of a small matrix (the Rayleigh–Ritz step of
// top-eigen.ts, and tests' references).

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
