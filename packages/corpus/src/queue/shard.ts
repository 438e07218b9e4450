// A job's results on disk: `<jobId>.f32` (the embeddings, float32, one after another) and
// `<jobId>.json` (each input's shape and offset, or its error). Both are written under temporary
// names and renamed, the .json last, so a shard that can be read is whole; a re-delivered job
// writes the same names and replaces its earlier shard, never adding a second one.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusRecord } from '../embed/corpus-item.js';
import { CorpusError } from '../errors.js';

export type ShardEntry = { input: string; shape: number[]; offset: number } | { input: string; error: string };

export interface ShardMeta {
  job: string;
  first: number;
  entries: ShardEntry[];
}

export function writeShard(dir: string, job: string, first: number, records: readonly CorpusRecord[]): string {
  mkdirSync(dir, { recursive: true });
  const temp = `.${process.pid}-${Date.now()}`;
  const entries: ShardEntry[] = [];
  const data = join(dir, `${job}.f32`);
  const meta = join(dir, `${job}.json`);
  writeWhole(data + temp, (fd) => {
    let offset = 0;
    for (const r of records) {
      if ('error' in r) {
        entries.push({ input: r.item.label, error: r.error });
        continue;
      }
      const bytes = new Uint8Array(r.values.buffer, r.values.byteOffset, r.values.byteLength);
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
      entries.push({ input: r.item.label, shape: r.shape, offset });
      offset += r.values.length;
    }
  });
  renameSync(data + temp, data);
  const body: ShardMeta = { job, first, entries };
  writeWhole(meta + temp, (fd) => writeSync(fd, JSON.stringify(body)));
  renameSync(meta + temp, meta);
  return meta;
}

/** Writes and fsyncs a temporary file; one that cannot be written whole (a full disk) is removed, not left behind. */
function writeWhole(path: string, write: (fd: number) => void): void {
  const fd = openSync(path, 'w');
  try {
    write(fd);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw err;
  }
  closeSync(fd);
}

export interface ShardRecord {
  input: string;
  values?: Float32Array;
  shape?: number[];
  error?: string;
}

export function readShard(metaPath: string): { meta: ShardMeta; records: ShardRecord[] } {
  let meta: ShardMeta;
  let raw: Buffer;
  try {
    meta = JSON.parse(readFileSync(metaPath, 'utf8')) as ShardMeta;
    raw = readFileSync(metaPath.replace(/\.json$/, '.f32'));
  } catch (err) {
    throw new CorpusError(
      'shard_unreadable',
      `the shard ${metaPath} cannot be read: ${(err as Error).message} (is the workers' --out folder visible here?)`,
      { cause: err },
    );
  }
  const floats = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  const records = meta.entries.map((e): ShardRecord => {
    if ('error' in e) return { input: e.input, error: e.error };
    const size = e.shape.reduce((a, b) => a * b, 1);
    if (e.offset + size > floats.length) throw new CorpusError('shard_short', `the shard ${metaPath} is shorter than its index says`);
    return { input: e.input, values: floats.subarray(e.offset, e.offset + size), shape: e.shape };
  });
  return { meta, records };
}
