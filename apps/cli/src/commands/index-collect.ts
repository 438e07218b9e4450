// `jepa queue collect NAME --index DIR`: the workers' records, a job at a time, into an index: the
// files new or changed since the index last saw them (by path, size and mtime), one transaction per job.
import { statSync } from 'node:fs';
import type { CorpusItem, CorpusRecord } from '@jepa/corpus';
import { type FileIdentity, type NewRow, VectorIndex } from '@jepa/search';
import type { IndexedModel } from './index-embed.js';

export interface CollectIntoIndex {
  inputs: number;
  added: number;
  unchanged: number;
  rows: number;
  failures: { path: string; error: string }[];
}

export async function collectIntoIndex(
  jobs: AsyncIterable<{ items: CorpusItem[]; records: CorpusRecord[] }>,
  dir: string,
  model: IndexedModel,
): Promise<CollectIntoIndex> {
  const index = VectorIndex.openOrCreate(dir, model.identity);
  try {
    let todo: Map<string, FileIdentity> | null = null;
    const out: CollectIntoIndex = { inputs: 0, added: 0, unchanged: 0, rows: 0, failures: [] };
    for await (const { items, records } of jobs) {
      if (todo === null) {
        const present: FileIdentity[] = [];
        for (const it of items) {
          try {
            const s = statSync(it.label);
            present.push({ path: it.label, size: s.size, mtimeMs: s.mtimeMs });
          } catch {
            out.failures.push({ path: it.label, error: 'no such file here (the index keeps files this machine can see)' });
          }
        }
        todo = new Map(index.pending(present).map((f) => [f.path, f]));
        out.inputs = items.length;
        out.unchanged = present.length - todo.size;
      }
      const rows: NewRow[] = [];
      const finished: FileIdentity[] = [];
      for (const r of records) {
        const f = todo.get(r.item.label);
        if (!f) continue;
        if ('error' in r) out.failures.push({ path: f.path, error: r.error });
        else {
          rows.push({ path: f.path, vector: r.values });
          finished.push(f);
        }
      }
      index.commit(rows, finished, finished);
      out.added += finished.length;
    }
    out.rows = index.info().rows;
    return out;
  } finally {
    index.close();
  }
}
