// Does nearest-neighbour search still return the same images with quantized weights? Every photo of
// a folder is embedded as `jepa embed` embeds it (the model's own preprocessing, embedCorpus, the
// pooling `jepa embed` picks by default: CLS where the model has one, else the patch mean), the
// pooled embeddings are L2-normalised, and each model's top-K neighbours of every query (the other
// images, by cosine) are compared with the reference's: agreement@K = |topK_model ∩ topK_ref| / K.
import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { embedCorpus, type CorpusItem, type Pool } from '@jepa/corpus';
import { FILE_TYPE_Q8_ROW, GgmlType, ggmlTypeInfo, readGguf } from '@jepa/gguf';
import { ModelSession } from '@jepa/session';

export interface RetrievalOptions {
  reference: string;
  models: string[];
  photos: string;
  /** K of agreement@K (default 10). */
  top?: number;
  /** Only the first N images by name. */
  limit?: number;
  threads?: number;
  /** Images per encoder call (default 32, as jepa embed). */
  batch?: number;
  /** Override the default pooling (CLS where the model has one, else the patch mean). */
  pool?: 'mean' | 'cls';
}

export interface ModelLabel {
  file: string;
  path: string;
  /** general.file_type (llama.cpp ftype code), null when the file has none. */
  fileType: number | null;
  /** The ggml type holding the most weight elements. */
  dominantType: string;
  /** Share of all weight elements in that type. */
  dominantShare: number;
}

export interface RetrievalRow extends ModelLabel {
  agreementMean: number;
  agreementMin: number;
  /** Mean over images of cos(model embedding, reference embedding) of the same image. */
  cosineMean: number;
  cosineMin: number;
  embedSeconds: number;
}

export interface RetrievalReport {
  reference: ModelLabel & { embedSeconds: number };
  photos: string;
  images: number;
  top: number;
  pool: Pool;
  /** What the embedding is, in words. */
  embedding: string;
  dim: number;
  rows: RetrievalRow[];
}

const IMAGE_EXT = new Set(['.jpg', '.jpeg', '.png']);

/** The folder's jpg/png files sorted by name, the first `limit` of them. */
export function listPhotos(dir: string, limit?: number): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    throw new Error(`--photos ${dir}: ${(e as Error).message}`);
  }
  const files = names
    .filter((n) => IMAGE_EXT.has(extname(n).toLowerCase()))
    .sort()
    .map((n) => join(dir, n))
    .filter((p) => statSync(p).isFile());
  return limit === undefined ? files : files.slice(0, limit);
}

function typeName(id: number): string {
  try {
    return ggmlTypeInfo(id).name;
  } catch {
    return `type ${id}`;
  }
}

/** File name, general.file_type and the type of most weight elements, from the GGUF header alone. */
export function modelLabel(path: string): ModelLabel {
  const header = readGguf(path);
  const ft = header.metadata.get('general.file_type')?.value;
  const fileType = typeof ft === 'number' ? ft : typeof ft === 'bigint' ? Number(ft) : null;
  const elements = new Map<number, number>();
  let total = 0;
  for (const t of header.tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    elements.set(t.type, (elements.get(t.type) ?? 0) + n);
    total += n;
  }
  let best = 0;
  let bestN = -1;
  for (const [type, n] of elements)
    if (n > bestN) {
      best = type;
      bestN = n;
    }
  // q8_row's i8 matrices are a weight type of their own (their f32 row scales beside them)
  const dominantType = best === GgmlType.I8 && fileType === FILE_TYPE_Q8_ROW ? 'q8_row' : typeName(best);
  return { file: basename(path), path, fileType, dominantType, dominantShare: total > 0 ? bestN / total : 0 };
}

/** Rows of unit length, in place. */
export function normalizeRows(rows: Float32Array[]): Float32Array[] {
  for (const r of rows) {
    let s = 0;
    for (let i = 0; i < r.length; i++) s += r[i]! * r[i]!;
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let i = 0; i < r.length; i++) r[i] = r[i]! * inv;
  }
  return rows;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** For each query, the indices of its k nearest other rows by cosine (rows already unit length); ties go to the lower index. */
export function topK(rows: Float32Array[], k: number): number[][] {
  const n = rows.length;
  const sims = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const s = dot(rows[i]!, rows[j]!);
      sims[i]![j] = s;
      sims[j]![i] = s;
    }
  return sims.map((row, q) =>
    [...row.keys()]
      .filter((j) => j !== q)
      .sort((a, b) => row[b]! - row[a]! || a - b)
      .slice(0, k),
  );
}

/** Per query, |topK_a ∩ topK_b| / k. */
export function agreements(a: number[][], b: number[][], k: number): number[] {
  return a.map((na, q) => {
    const nb = new Set(b[q]);
    return na.filter((j) => nb.has(j)).length / k;
  });
}

interface Embedded {
  rows: Float32Array[];
  dim: number;
  pool: Pool;
  seconds: number;
}

async function embedAll(path: string, files: string[], o: RetrievalOptions, expectDim: number | null, log: (s: string) => void): Promise<Embedded> {
  const session = await ModelSession.load(path, { ...(o.threads ? { threads: o.threads } : {}), encoder: o.batch ? { maxBatch: o.batch } : {} });
  try {
    const pool = session.choosePool(o.pool, '--pool');
    const dim = session.encoder.dim;
    if (expectDim !== null && dim !== expectDim)
      throw new Error(`${basename(path)}: embedding width ${dim} differs from the reference's ${expectDim}; retrieval needs the same space`);
    const items: CorpusItem[] = files.map((f) => ({ label: f, load: () => session.input.image(f), still: true }));
    const rows: Float32Array[] = [];
    const t0 = process.hrtime.bigint();
    let last = 0;
    for await (const records of embedCorpus(items, { session, pool, ...(o.batch ? { batch: o.batch } : {}) })) {
      for (const r of records) {
        if ('error' in r) throw new Error(`${r.item.label}: ${r.error}`);
        rows.push(r.values);
      }
      const now = Date.now();
      if (rows.length === files.length || now - last > 2000) {
        last = now;
        const s = Number(process.hrtime.bigint() - t0) / 1e9;
        log(`${basename(path)}: ${rows.length} / ${files.length} images embedded (${(rows.length / s).toFixed(1)}/s)`);
      }
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    return { rows: normalizeRows(rows), dim, pool, seconds };
  } finally {
    await session.dispose();
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function runRetrievalBench(o: RetrievalOptions, log: (s: string) => void): Promise<RetrievalReport> {
  const k = o.top ?? 10;
  if (!Number.isInteger(k) || k < 1) throw new Error(`--top must be a positive integer, got ${k}`);
  if (o.models.length === 0) throw new Error('--models: give at least one model to compare with the reference');
  const files = listPhotos(o.photos, o.limit);
  if (files.length < k + 1) {
    const subdirs = readdirSync(o.photos, { withFileTypes: true }).filter((d) => d.isDirectory());
    const hint = files.length === 0 && subdirs.length > 0 ? ` (subfolders are not searched: ${subdirs.map((d) => `${d.name}/`).join(', ')})` : '';
    throw new Error(
      `${o.photos}: ${files.length} jpg/png image${files.length === 1 ? '' : 's'}${o.limit !== undefined ? ` (--limit ${o.limit})` : ''}; top-${k} neighbours among the other images need at least ${k + 1}${hint}`,
    );
  }
  // every label first: a file that is not a GGUF fails before minutes of embedding
  const refLabel = modelLabel(o.reference);
  const labels = o.models.map(modelLabel);
  const ref = await embedAll(o.reference, files, o, null, log);
  const refTop = topK(ref.rows, k);
  const rows: RetrievalRow[] = [];
  for (const label of labels) {
    const m = await embedAll(label.path, files, { ...o, pool: ref.pool as 'mean' | 'cls' }, ref.dim, log);
    const agree = agreements(topK(m.rows, k), refTop, k);
    const cos = m.rows.map((r, i) => dot(r, ref.rows[i]!));
    rows.push({
      ...label,
      agreementMean: mean(agree),
      agreementMin: Math.min(...agree),
      cosineMean: mean(cos),
      cosineMin: Math.min(...cos),
      embedSeconds: m.seconds,
    });
  }
  return {
    reference: { ...refLabel, embedSeconds: ref.seconds },
    photos: o.photos,
    images: files.length,
    top: k,
    pool: ref.pool,
    embedding:
      ref.pool === 'cls'
        ? 'the CLS token of the final encoder output (jepa embed --pool cls), L2-normalised'
        : 'the mean of the patch tokens of the final encoder output (jepa embed --pool mean), L2-normalised',
    dim: ref.dim,
    rows,
  };
}

function labelText(l: ModelLabel): string {
  return `${l.dominantType}${l.dominantShare < 0.995 ? ` (${(100 * l.dominantShare).toFixed(0)} %)` : ''}, file_type ${l.fileType ?? '-'}`;
}

export function retrievalMarkdown(r: RetrievalReport): string {
  return [
    `${r.images} images from ${r.photos}; embedding: ${r.embedding}, ${r.dim} wide; reference ${r.reference.file} (${labelText(r.reference)}), embedded in ${r.reference.embedSeconds.toFixed(1)} s`,
    '',
    `| model | weights | agreement@${r.top} mean | agreement@${r.top} min | cosine to reference mean | cosine min | embed s |`,
    '|---|---|---|---|---|---|---|',
    ...r.rows.map(
      (m) =>
        `| ${m.file} | ${labelText(m)} | ${m.agreementMean.toFixed(4)} | ${m.agreementMin.toFixed(2)} | ${m.cosineMean.toFixed(6)} | ${m.cosineMin.toFixed(6)} | ${m.embedSeconds.toFixed(1)} |`,
    ),
  ].join('\n');
}
