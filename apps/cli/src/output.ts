// Writes embeddings: .npy (one array), .json (an array of records) or .jsonl (a record per line).
import { accessSync, constants, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { encodeNpy } from '@jepa/preprocess';
import { UserError } from './user-error.js';

export interface EmbeddingRecord {
  input: string;
  /** [D] pooled, or [N, D] tokens. */
  values: Float32Array;
  shape: number[];
}

function nested(values: Float32Array, shape: number[]): unknown {
  if (shape.length <= 1) return Array.from(values);
  const rows: unknown[] = [];
  const inner = shape.slice(1).reduce((a, b) => a * b, 1);
  for (let i = 0; i < shape[0]!; i++) rows.push(nested(values.subarray(i * inner, (i + 1) * inner), shape.slice(1)));
  return rows;
}

export function outputFormat(path: string | undefined): 'npy' | 'json' | 'jsonl' {
  if (path === undefined) return 'jsonl';
  const ext = extname(path).toLowerCase();
  if (ext === '.npy') return 'npy';
  if (ext === '.json') return 'json';
  if (ext === '.jsonl') return 'jsonl';
  throw new UserError(`-o ${path}: use a .npy, .json or .jsonl file`);
}

export function writeEmbeddings(path: string | undefined, records: EmbeddingRecord[]): void {
  const format = outputFormat(path);
  if (format === 'npy') {
    if (records.length === 0) throw new UserError('nothing to write: every input failed');
    const shape = records[0]!.shape;
    if (!records.every((r) => r.shape.join() === shape.join()))
      throw new UserError('the embeddings differ in shape (token counts vary with input size); write .json or .jsonl instead');
    const size = records[0]!.values.length;
    const all = new Float32Array(records.length * size);
    records.forEach((r, i) => all.set(r.values, i * size));
    writeFileSync(path!, encodeNpy(all, [records.length, ...shape]));
    return;
  }
  const rows = records.map((r) => ({ input: r.input, shape: r.shape, embedding: nested(r.values, r.shape) }));
  const text = format === 'json' ? `${JSON.stringify(rows)}\n` : rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
  if (path === undefined) process.stdout.write(text);
  else writeFileSync(path, text);
}

/** Refuses an output path that cannot be written, before any work is done. */
export function checkOutputWritable(path: string | undefined): void {
  if (path === undefined) return;
  const dir = dirname(resolve(path));
  let info: Stats | undefined;
  try {
    info = statSync(path);
  } catch {
    // Not there yet: its folder must be.
  }
  if (info?.isDirectory()) throw new UserError(`-o ${path}: that is a folder; name a file`);
  try {
    accessSync(info ? path : dir, constants.W_OK);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? `the folder ${dir} does not exist` : `${info ? 'the file' : `the folder ${dir}`} is not writable`;
    throw new UserError(`-o ${path}: ${reason}`);
  }
}
