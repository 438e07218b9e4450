// How an engine output is judged against a reference: per-token cosine and rel_max, with bars
// from a table indexed by backend x family class x file-type tier (the spec's POLICY). Every
// verdict carries the row it was judged by.
import { FILE_TYPE_Q8_ROW } from '@jepa/gguf';

export type Backend = 'cpu' | 'gpu';
export type FamilyClass = 'image' | 'video';
/** 'q8-row': i8 weights with one f32 scale per output row (general.file_type FILE_TYPE_Q8_ROW). */
export type Tier = 'f32' | 'f16' | 'q8' | 'q8-row' | 'low-bit';

export interface PolicyRow {
  backend: Backend;
  familyClass: FamilyClass;
  tier: Tier;
  /** Bar on the worst token's cosine (null: not gated). */
  minCos: number | null;
  /** Bar on the median token's cosine (video tiers gate this instead of the worst token). */
  medianCos: number | null;
  /** rel_max bound as a multiple of REL(N). */
  relMaxFactor: number | null;
  /** Bar on the pooled feature's cosine. */
  pooledCos: number | null;
  /** Below 8 bits per weight: reported, only derived outputs gated. */
  advisory: boolean;
}

/** REL(N) = max(1e-3, 1e-3 * sqrt(N / 2048)): max-abs error grows like the reductions feeding it. */
export function relBound(tokens: number): number {
  return Math.max(1e-3, 1e-3 * Math.sqrt(tokens / 2048));
}

const row = (backend: Backend, familyClass: FamilyClass, tier: Tier, r: Partial<PolicyRow>): PolicyRow => ({
  backend,
  familyClass,
  tier,
  minCos: null,
  medianCos: null,
  relMaxFactor: null,
  pooledCos: null,
  advisory: false,
  ...r,
});

export const POLICY: readonly PolicyRow[] = [
  row('cpu', 'image', 'f32', { minCos: 0.9999, relMaxFactor: 1, pooledCos: 0.99999 }),
  row('cpu', 'video', 'f32', { minCos: 0.9999, relMaxFactor: 1, pooledCos: 0.99999 }),
  row('cpu', 'image', 'f16', { minCos: 0.999, relMaxFactor: 10, pooledCos: 0.9999 }),
  row('cpu', 'video', 'f16', { medianCos: 0.999, pooledCos: 0.9995 }),
  row('cpu', 'image', 'q8', { minCos: 0.99, pooledCos: 0.999 }),
  row('cpu', 'video', 'q8', { medianCos: 0.99, pooledCos: 0.995 }),
  // q8-row on the CPU's panels: each token's activations quantized once to u8 over its whole row, so
  // the pooled bar sits below q8's (worst measured on the fixtures: pooled 0.99742, hfvit_swiglu; docs/quantization.md)
  row('cpu', 'image', 'q8-row', { minCos: 0.99, pooledCos: 0.995 }),
  row('cpu', 'video', 'q8-row', { medianCos: 0.99, pooledCos: 0.995 }),
  row('cpu', 'image', 'low-bit', { pooledCos: 0.95, advisory: true }),
  row('cpu', 'video', 'low-bit', { pooledCos: 0.9, advisory: true }),
  // GPU: TF32 matmuls, F16 flash-attention K/V, one-pass norm variance; rel_max gated in every cell.
  row('gpu', 'image', 'f32', { minCos: 0.9995, relMaxFactor: 20, pooledCos: 0.9999 }),
  row('gpu', 'video', 'f32', { medianCos: 0.9995, relMaxFactor: 20, pooledCos: 0.9995 }),
  row('gpu', 'image', 'f16', { minCos: 0.998, relMaxFactor: 40, pooledCos: 0.9995 }),
  row('gpu', 'video', 'f16', { medianCos: 0.998, relMaxFactor: 40, pooledCos: 0.999 }),
  row('gpu', 'image', 'q8', { minCos: 0.99, relMaxFactor: 80, pooledCos: 0.999 }),
  row('gpu', 'video', 'q8', { medianCos: 0.99, relMaxFactor: 80, pooledCos: 0.995 }),
  // q8-row on a GPU: dequantized to F16 at load, the activations stay float: q8's bars
  row('gpu', 'image', 'q8-row', { minCos: 0.99, relMaxFactor: 80, pooledCos: 0.999 }),
  row('gpu', 'video', 'q8-row', { medianCos: 0.99, relMaxFactor: 80, pooledCos: 0.995 }),
  row('gpu', 'image', 'low-bit', { pooledCos: 0.95, relMaxFactor: 400, advisory: true }),
  row('gpu', 'video', 'low-bit', { pooledCos: 0.9, relMaxFactor: 400, advisory: true }),
];

/**
 * The tier of a general.file_type (llama.cpp's LLAMA_FTYPE codes): f32 0, f16 1 / bf16 32, q8_0 7; and jepa's
 * q8_row, FILE_TYPE_Q8_ROW (1000).
 */
export function tierOf(fileType: number | null): Tier {
  if (fileType === null || fileType === 0) return 'f32';
  if (fileType === 1 || fileType === 32) return 'f16';
  if (fileType === 7) return 'q8';
  if (fileType === FILE_TYPE_Q8_ROW) return 'q8-row';
  return 'low-bit';
}

export function policyRow(backend: Backend, familyClass: FamilyClass, tier: Tier): PolicyRow {
  const r = POLICY.find((p) => p.backend === backend && p.familyClass === familyClass && p.tier === tier);
  if (!r) throw new Error(`no policy row for ${backend}/${familyClass}/${tier}`);
  return r;
}

export interface TokenMetrics {
  tokens: number;
  minCos: number;
  medianCos: number;
  worstToken: number;
  /** max |a - b| / max |b| over every value. */
  relMax: number;
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>, start = 0, end = a.length): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = start; i < end; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  if (aa === 0 && bb === 0) return 1;
  return ab / Math.sqrt(aa * bb);
}

/** Per-token comparison of [tokens, dim] arrays. */
export function compareTokens(actual: ArrayLike<number>, expected: ArrayLike<number>, dim: number): TokenMetrics {
  if (actual.length !== expected.length) throw new Error(`${actual.length} values against ${expected.length} expected`);
  const tokens = expected.length / dim;
  const cos: number[] = [];
  let worstToken = 0;
  for (let t = 0; t < tokens; t++) {
    const c = cosine(actual, expected, t * dim, (t + 1) * dim);
    cos.push(c);
    if (c < cos[worstToken]!) worstToken = t;
  }
  let maxDiff = 0;
  let maxRef = 0;
  for (let i = 0; i < expected.length; i++) {
    const d = Math.abs(actual[i]! - expected[i]!);
    if (!(d <= maxDiff)) maxDiff = d;
    maxRef = Math.max(maxRef, Math.abs(expected[i]!));
  }
  const sorted = [...cos].sort((x, y) => x - y);
  return { tokens, minCos: sorted[0]!, medianCos: sorted[sorted.length >> 1]!, worstToken, relMax: maxDiff / (maxRef || 1) };
}

export interface Verdict {
  pass: boolean;
  row: PolicyRow;
  metrics: TokenMetrics;
  pooledCos: number | null;
  failures: string[];
  /** One line: the row, the numbers and the outcome. */
  summary: string;
}

export function judge(row: PolicyRow, metrics: TokenMetrics, pooledCos: number | null = null): Verdict {
  const failures: string[] = [];
  const rel = row.relMaxFactor === null ? null : row.relMaxFactor * relBound(metrics.tokens);
  if (!row.advisory) {
    if (row.minCos !== null && !(metrics.minCos >= row.minCos))
      failures.push(`worst token ${metrics.worstToken} cosine ${metrics.minCos.toFixed(6)} < ${row.minCos}`);
    if (row.medianCos !== null && !(metrics.medianCos >= row.medianCos))
      failures.push(`median cosine ${metrics.medianCos.toFixed(6)} < ${row.medianCos}`);
  }
  if (rel !== null && !(metrics.relMax <= rel)) failures.push(`rel_max ${metrics.relMax.toExponential(2)} > ${rel.toExponential(2)}`);
  if (row.pooledCos !== null && pooledCos !== null && !(pooledCos >= row.pooledCos))
    failures.push(`pooled cosine ${pooledCos.toFixed(6)} < ${row.pooledCos}`);
  const summary =
    `[${row.backend}/${row.familyClass}/${row.tier}${row.advisory ? ' advisory' : ''}] ` +
    `N=${metrics.tokens} min cos ${metrics.minCos.toFixed(6)} median ${metrics.medianCos.toFixed(6)} rel_max ${metrics.relMax.toExponential(2)}` +
    `${rel !== null ? ` (bound ${rel.toExponential(2)})` : ''}${pooledCos !== null ? ` pooled cos ${pooledCos.toFixed(6)}` : ''}: ${failures.length ? `FAIL: ${failures.join('; ')}` : 'pass'}`;
  return { pass: failures.length === 0, row, metrics, pooledCos, failures, summary };
}
