// --normalize on jepa embed and jepa worker: each vector scaled to unit L2 length (each token's with
// --pool none) by the engine's l2NormalizeRows, the rule behind the server's and MCP's `normalize`.
import { Option } from 'commander';
import type { CorpusRecord } from '@jepa/corpus';
import { l2NormalizeRows } from '@jepa/engine';

export function normalizeOption(): Option {
  return new Option('--normalize', 'scale each vector (each token with --pool none) to unit L2 length');
}

/** The batches as they come, each record's values normalised in place when `on`. */
export async function* normalizedBatches(batches: AsyncIterable<CorpusRecord[]>, on: boolean | undefined): AsyncGenerator<CorpusRecord[]> {
  for await (const records of batches) {
    if (on) for (const r of records) if (!('error' in r)) l2NormalizeRows(r.values, r.shape[r.shape.length - 1]!);
    yield records;
  }
}
