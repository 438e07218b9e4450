// The output's index: a JSON line per input, written after that input's data, so that a line's
// presence means its bytes are on disk. `end` is the data file's length once the input is written.
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import type { ItemIdentity } from './item-identity.js';

export interface IndexEntry {
  input: string;
  size?: number;
  mtimeMs?: number;
  /** The item's row in the output (its line in .jsonl, its place in .json and .npy). */
  row?: number;
  error?: string;
  end: number;
}

export function indexLine(
  input: string,
  identity: ItemIdentity | null,
  result: { row: number } | { error: string },
  end: number,
  meta?: Readonly<Record<string, unknown>>,
): string {
  return `${JSON.stringify({ input, ...meta, ...(identity ?? {}), ...result, end })}\n`;
}

/** The complete lines of an index and the bytes they span; a torn last line is left out. */
export function readIndex(path: string): { entries: IndexEntry[]; bytes: number[] } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const text = Buffer.alloc(size);
    let got = 0;
    while (got < size) got += readSync(fd, text, got, size - got, got);
    const entries: IndexEntry[] = [];
    const bytes: number[] = [];
    let start = 0;
    for (;;) {
      const nl = text.indexOf(10, start);
      if (nl < 0) break;
      let entry: IndexEntry;
      try {
        entry = JSON.parse(text.toString('utf8', start, nl)) as IndexEntry;
      } catch {
        break;
      }
      if (typeof entry?.input !== 'string' || typeof entry.end !== 'number') break;
      entries.push(entry);
      bytes.push(nl + 1);
      start = nl + 1;
    }
    return { entries, bytes };
  } finally {
    closeSync(fd);
  }
}
