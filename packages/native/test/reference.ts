// Float64 reference implementations of the ggml ops, on contiguous arrays in ggml order.
import { at, count, dims4 } from './helpers.js';

export interface Ref {
  ne: [number, number, number, number];
  data: Float64Array;
}

export const ref = (ne: number[], data: ArrayLike<number>): Ref => ({ ne: dims4(ne), data: Float64Array.from(data) });

function make(ne: number[], f: (i0: number, i1: number, i2: number, i3: number) => number): Ref {
  const n = dims4(ne);
  const data = new Float64Array(count(n));
  for (let i3 = 0; i3 < n[3]; i3++)
    for (let i2 = 0; i2 < n[2]; i2++)
      for (let i1 = 0; i1 < n[1]; i1++) for (let i0 = 0; i0 < n[0]; i0++) data[at(n, i0, i1, i2, i3)] = f(i0, i1, i2, i3);
  return { ne: n, data };
}

const get = (x: Ref, i0: number, i1: number, i2: number, i3: number) => x.data[at(x.ne, i0, i1, i2, i3)]!;
/** b broadcast onto a's shape (ggml_can_repeat semantics). */
const bcast = (b: Ref, i0: number, i1: number, i2: number, i3: number) => get(b, i0 % b.ne[0], i1 % b.ne[1], i2 % b.ne[2], i3 % b.ne[3]);

export function binary(a: Ref, b: Ref, f: (x: number, y: number) => number): Ref {
  return make(a.ne, (i0, i1, i2, i3) => f(get(a, i0, i1, i2, i3), bcast(b, i0, i1, i2, i3)));
}

export function map(a: Ref, f: (x: number) => number): Ref {
  return { ne: a.ne, data: a.data.map(f) };
}

export function mulMat(a: Ref, b: Ref): Ref {
  const [K, M, A2, A3] = a.ne;
  const [, N, B2, B3] = b.ne;
  return make([M, N, B2, B3], (m, n, i2, i3) => {
    let s = 0;
    for (let k = 0; k < K; k++) s += get(a, k, m, Math.floor(i2 / (B2 / A2)), Math.floor(i3 / (B3 / A3))) * get(b, k, n, i2, i3);
    return s;
  });
}

function rows(a: Ref, f: (row: Float64Array) => Float64Array): Ref {
  const [n0] = a.ne;
  const out: number[] = [];
  let outLen = 0;
  for (let r = 0; r < a.data.length / n0; r++) {
    const res = f(a.data.subarray(r * n0, (r + 1) * n0));
    outLen = res.length;
    out.push(...res);
  }
  return { ne: [outLen, a.ne[1], a.ne[2], a.ne[3]], data: Float64Array.from(out) };
}

export function norm(a: Ref, eps: number): Ref {
  return rows(a, (r) => {
    const mean = r.reduce((s, x) => s + x, 0) / r.length;
    const v = r.reduce((s, x) => s + (x - mean) ** 2, 0) / r.length;
    return r.map((x) => (x - mean) / Math.sqrt(v + eps));
  });
}

export const sumRows = (a: Ref) => rows(a, (r) => Float64Array.of(r.reduce((s, x) => s + x, 0)));
export const mean = (a: Ref) => rows(a, (r) => Float64Array.of(r.reduce((s, x) => s + x, 0) / r.length));

export function softMax(a: Ref, mask: Ref | null, scale: number): Ref {
  const [n0, n1, n2, n3] = a.ne;
  const out = new Float64Array(a.data.length);
  for (let i3 = 0; i3 < n3; i3++)
    for (let i2 = 0; i2 < n2; i2++)
      for (let i1 = 0; i1 < n1; i1++) {
        const z = new Float64Array(n0);
        for (let i0 = 0; i0 < n0; i0++) {
          const m = mask ? get(mask, i0, i1, i2 % mask.ne[2], i3 % mask.ne[3]) : 0;
          z[i0] = get(a, i0, i1, i2, i3) * scale + m;
        }
        const mx = Math.max(...z);
        let s = 0;
        for (let i0 = 0; i0 < n0; i0++) s += Math.exp(z[i0]! - mx);
        for (let i0 = 0; i0 < n0; i0++) out[at(a.ne, i0, i1, i2, i3)] = Math.exp(z[i0]! - mx) / s;
      }
  return { ne: a.ne, data: out };
}

/** q [d, nQ, H, B], k/v [d, nKV, Hkv, B], mask [nKV, >=nQ] -> [dv, H, nQ, B]. */
export function attention(q: Ref, k: Ref, v: Ref, mask: Ref | null, scale: number): Ref {
  const [d, nQ, H, B] = q.ne;
  const [, nKV, Hkv] = k.ne;
  const dv = v.ne[0];
  const out = new Float64Array(dv * H * nQ * B);
  const ne = [dv, H, nQ, B];
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++) {
      const hk = Math.floor(h / (H / Hkv));
      for (let i = 0; i < nQ; i++) {
        const s = new Float64Array(nKV);
        for (let j = 0; j < nKV; j++) {
          let dot = 0;
          for (let c = 0; c < d; c++) dot += get(q, c, i, h, b) * get(k, c, j, hk, b);
          s[j] = dot * scale + (mask ? get(mask, j, i, 0, 0) : 0);
        }
        const mx = Math.max(...s);
        let z = 0;
        for (let j = 0; j < nKV; j++) z += Math.exp(s[j]! - mx);
        for (let c = 0; c < dv; c++) {
          let acc = 0;
          for (let j = 0; j < nKV; j++) acc += (Math.exp(s[j]! - mx) / z) * get(v, c, j, hk, b);
          out[at(ne, c, h, i, b)] = acc;
        }
      }
    }
  return { ne: dims4(ne), data: out };
}

export function concat(a: Ref, b: Ref, dim: number): Ref {
  const ne = [...a.ne];
  ne[dim] = a.ne[dim] + b.ne[dim];
  return make(ne, (...i) => {
    if (i[dim]! < a.ne[dim]) return get(a, i[0]!, i[1]!, i[2]!, i[3]!);
    const j = [...i];
    j[dim] = j[dim]! - a.ne[dim];
    return get(b, j[0]!, j[1]!, j[2]!, j[3]!);
  });
}

/** ggml_permute: axis i of a goes to position axes[i] of the result. */
export function permute(a: Ref, axes: number[]): Ref {
  const ne = [0, 0, 0, 0];
  for (let i = 0; i < 4; i++) ne[axes[i]!] = a.ne[i]!;
  return make(ne, (...o) => {
    const src = [0, 0, 0, 0];
    for (let i = 0; i < 4; i++) src[i] = o[axes[i]!]!;
    return get(a, src[0]!, src[1]!, src[2]!, src[3]!);
  });
}

export function roll(a: Ref, shifts: number[]): Ref {
  return make(a.ne, (...o) => {
    const s = o.map((x, d) => (((x - shifts[d]!) % a.ne[d]!) + a.ne[d]!) % a.ne[d]!);
    return get(a, s[0]!, s[1]!, s[2]!, s[3]!);
  });
}

export function getRows(a: Ref, ids: number[][]): Ref {
  // ids[i2] lists the rows picked from a[:, :, i2]
  const n = ids[0]!.length;
  return make([a.ne[0], n, a.ne[2], 1], (i0, i1, i2) => get(a, i0, ids[i2]![i1]!, i2, 0));
}

export function repeat(a: Ref, ne: number[]): Ref {
  return make(ne, (i0, i1, i2, i3) => bcast(a, i0, i1, i2, i3));
}

/** erf to ~1e-15 (series near zero, continued fraction in the tails). */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 2.5) {
    let term = ax;
    let sum = ax;
    for (let n = 1; n < 80; n++) {
      term *= (-ax * ax) / n;
      sum += term / (2 * n + 1);
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  let f = 0;
  for (let n = 60; n >= 1; n--) f = n / 2 / (ax + f);
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / (ax + f);
  return Math.sign(x) * (1 - erfc);
}
