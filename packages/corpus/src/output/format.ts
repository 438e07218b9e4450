// The three embedding outputs: .npy (one float32 array), .json (an array of records), .jsonl (a record per line).
import { extname } from 'node:path';
import { CorpusError } from '../errors.js';

export type OutputFormat = 'npy' | 'json' | 'jsonl';

export function outputFormat(path: string | undefined): OutputFormat {
  if (path === undefined) return 'jsonl';
  const ext = extname(path).toLowerCase();
  if (ext === '.npy') return 'npy';
  if (ext === '.json') return 'json';
  if (ext === '.jsonl') return 'jsonl';
  throw new CorpusError('output_format', `-o ${path}: use a .npy, .json or .jsonl file`);
}

/** One record as JSON text: `{"input", "shape", "embedding"}`, the embedding nested to its shape. */
export function recordJson(input: string, values: Float32Array, shape: readonly number[], meta?: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ input, ...meta, shape, embedding: nested(values, shape) });
}

function nested(values: Float32Array, shape: readonly number[]): unknown {
  if (shape.length <= 1) return Array.from(values);
  const rows: unknown[] = [];
  const inner = shape.slice(1).reduce((a, b) => a * b, 1);
  for (let i = 0; i < shape[0]!; i++) rows.push(nested(values.subarray(i * inner, (i + 1) * inner), shape.slice(1)));
  return rows;
}

/** The index beside an output: one line per input, in input order (see docs/corpus.md). */
export function indexPathOf(output: string): string {
  return `${output}.index.jsonl`;
}

/** Where .npy and .json outputs grow until they are complete (a .jsonl grows in place). */
export function partialPathOf(output: string): string {
  return `${output}.partial`;
}
