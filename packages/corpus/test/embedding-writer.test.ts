// EmbeddingWriter without a model: hand-made records for real (tiny) input files, so that the bytes of
// every output, its index and what --resume does with a torn or finished output can be checked exactly.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JepaError } from '@jepa/errors';
import { parseNpyHeader, readNpy } from '@jepa/preprocess';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CorpusError,
  EmbeddingWriter,
  indexPathOf,
  partialPathOf,
  readIndex,
  type CorpusItem,
  type CorpusRecord,
  type OutputFormat,
} from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'jepa-corpus-writer-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
function newDir(): string {
  return mkdtempSync(join(root, `case-${dirs++}-`));
}

const FORMATS: OutputFormat[] = ['npy', 'json', 'jsonl'];
const DIM = 3;

/** n input files of distinct sizes with fixed mtimes (what --resume identifies them by). */
function makeItems(dir: string, n: number, prefix = 'in'): CorpusItem[] {
  return Array.from({ length: n }, (_, i) => itemFile(dir, `${prefix}-${String(i).padStart(3, '0')}.img`, i));
}

function itemFile(dir: string, name: string, i: number): CorpusItem {
  const path = join(dir, name);
  writeFileSync(path, 'x'.repeat(10 + i));
  const t = new Date(Date.UTC(2024, 0, 1, 0, 0, i, 250)); // a fractional mtimeMs too
  utimesSync(path, t, t);
  return { label: path, still: true, load: () => Promise.reject(new Error('not loaded in these tests')) };
}

/** A deterministic embedding per input, distinct across inputs, with values that are not round in float32. */
function valuesOf(i: number, dim = DIM): Float32Array {
  return Float32Array.from({ length: dim }, (_, j) => Math.sin(i * 7.31 + j * 1.7) * (j + 1) + i / 3);
}

/** Records for items; inputs listed in `failing` fail with a message naming them. */
function recordsOf(items: readonly CorpusItem[], failing: ReadonlySet<number> = new Set(), dim = DIM): CorpusRecord[] {
  return items.map((item, i) => (failing.has(i) ? { item, error: `cannot decode input ${i}` } : { item, values: valuesOf(i, dim), shape: [dim] }));
}

function batches<T>(list: readonly T[], sizes: readonly number[]): T[][] {
  const out: T[][] = [];
  let at = 0;
  let k = 0;
  while (at < list.length) {
    const n = sizes[k++ % sizes.length]!;
    out.push(list.slice(at, at + n));
    at += n;
  }
  return out;
}

function outputIn(dir: string, format: OutputFormat, name = 'out'): string {
  return join(dir, `${name}.${format}`);
}

/** One uninterrupted run: open, write every batch, finish. */
function writeAll(output: string, items: readonly CorpusItem[], records: readonly CorpusRecord[], sizes: readonly number[] = [2]): EmbeddingWriter {
  const writer = EmbeddingWriter.open(output, items);
  expect(writer.done).toBe(0);
  for (const b of batches(records, sizes)) writer.write(b);
  writer.finish();
  return writer;
}

const bytes = (path: string) => readFileSync(path);

/** The expected bytes, derived from the records without the writer's code. */
function expectedJsonl(records: readonly CorpusRecord[]): string {
  return records
    .filter((r) => !('error' in r))
    .map(
      (r) =>
        `${JSON.stringify({ input: r.item.label, shape: (r as { shape: number[] }).shape, embedding: Array.from((r as { values: Float32Array }).values) })}\n`,
    )
    .join('');
}

function expectedJson(records: readonly CorpusRecord[]): string {
  const parts = records
    .filter((r) => !('error' in r))
    .map((r) =>
      JSON.stringify({ input: r.item.label, shape: (r as { shape: number[] }).shape, embedding: Array.from((r as { values: Float32Array }).values) }),
    );
  return `[${parts.join(',')}]\n`;
}

function expectedNpyData(records: readonly CorpusRecord[]): Buffer {
  return Buffer.concat(
    records
      .filter((r) => !('error' in r))
      .map((r) => {
        const v = (r as { values: Float32Array }).values;
        return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      }),
  );
}

/** Each record's length in the data file (npy: the row; json: the record and its comma). */
function recordLengths(format: OutputFormat, records: readonly CorpusRecord[]): number[] {
  let row = 0;
  return records.map((r) => {
    if ('error' in r) return 0;
    const json = JSON.stringify({ input: r.item.label, shape: r.shape, embedding: Array.from(r.values) });
    const n = format === 'npy' ? r.values.byteLength : format === 'jsonl' ? Buffer.byteLength(json) + 1 : Buffer.byteLength(json) + (row > 0 ? 1 : 0);
    row++;
    return n;
  });
}

function indexEntries(output: string): Record<string, unknown>[] {
  return readFileSync(indexPathOf(output), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function corpusError(fn: () => unknown): CorpusError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CorpusError);
    expect(err).toBeInstanceOf(JepaError);
    return err as CorpusError;
  }
  throw new Error('expected a CorpusError');
}

describe('EmbeddingWriter: the bytes of an uninterrupted run', () => {
  it('.npy: one float32 [rows, D] array that readNpy reads back exactly; the header padded to a multiple of 64', () => {
    const dir = newDir();
    const items = makeItems(dir, 7);
    const records = recordsOf(items);
    const out = outputIn(dir, 'npy');
    const writer = writeAll(out, items, records, [3]);
    expect(writer.rows).toBe(7);
    expect(existsSync(partialPathOf(out))).toBe(false);
    const npy = readNpy(out);
    expect(npy.dtype).toBe('float32');
    expect(npy.shape).toEqual([7, DIM]);
    const data = npy.data as Float32Array;
    for (let i = 0; i < 7; i++) expect(Array.from(data.subarray(i * DIM, (i + 1) * DIM))).toEqual(Array.from(valuesOf(i)));
    const file = bytes(out);
    const { dataStart } = parseNpyHeader(file);
    expect(dataStart % 64).toBe(0);
    expect(file.subarray(dataStart).equals(expectedNpyData(records))).toBe(true);
    expect(file.length).toBe(dataStart + 7 * DIM * 4);
  });

  it('.npy: [N, D] token records keep their shape', () => {
    const dir = newDir();
    const items = makeItems(dir, 3);
    const records: CorpusRecord[] = items.map((item, i) => ({ item, values: valuesOf(i, 8), shape: [2, 4] }));
    const out = outputIn(dir, 'npy');
    writeAll(out, items, records);
    const npy = readNpy(out);
    expect(npy.shape).toEqual([3, 2, 4]);
    expect(Array.from((npy.data as Float32Array).subarray(8, 16))).toEqual(Array.from(valuesOf(1, 8)));
  });

  it('.json: an array of {input, shape, embedding}, exactly the expected text', () => {
    const dir = newDir();
    const items = makeItems(dir, 5);
    const records = recordsOf(items);
    const out = outputIn(dir, 'json');
    writeAll(out, items, records, [2]);
    expect(existsSync(partialPathOf(out))).toBe(false);
    const text = readFileSync(out, 'utf8');
    expect(text).toBe(expectedJson(records));
    const parsed = JSON.parse(text) as { input: string; shape: number[]; embedding: number[] }[];
    expect(parsed.map((p) => p.input)).toEqual(items.map((i) => i.label));
    expect(parsed[4]!.shape).toEqual([DIM]);
    expect(Float32Array.from(parsed[4]!.embedding)).toEqual(valuesOf(4));
  });

  it('.json: [N, D] embeddings are nested to their shape', () => {
    const dir = newDir();
    const items = makeItems(dir, 1);
    const out = outputIn(dir, 'json');
    writeAll(out, items, [{ item: items[0]!, values: Float32Array.from([1, 2, 3, 4, 5, 6]), shape: [2, 3] }]);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([
      {
        input: items[0]!.label,
        shape: [2, 3],
        embedding: [
          [1, 2, 3],
          [4, 5, 6],
        ],
      },
    ]);
  });

  it('.jsonl: a record per line, written in place (no .partial)', () => {
    const dir = newDir();
    const items = makeItems(dir, 5);
    const records = recordsOf(items);
    const out = outputIn(dir, 'jsonl');
    writeAll(out, items, records, [1, 3]);
    expect(readFileSync(out, 'utf8')).toBe(expectedJsonl(records));
    expect(existsSync(partialPathOf(out))).toBe(false);
  });

  it.each(FORMATS)('.%s: the index has a line per input in order with its identity, row and end', (format) => {
    const dir = newDir();
    const items = makeItems(dir, 6);
    const failing = new Set([0, 3]);
    const records = recordsOf(items, failing);
    const out = outputIn(dir, format);
    writeAll(out, items, records, [4]);
    const dataSize = bytes(out).length;
    const entries = indexEntries(out);
    expect(entries).toHaveLength(6);
    const lengths = recordLengths(format, records);
    // .json starts with its '['; .npy's header is written with the first row (so input 0, failed, ends at 0)
    let end = format === 'json' ? 1 : 0;
    let row = 0;
    entries.forEach((e, i) => {
      end += lengths[i]!;
      if (format === 'npy' && row === 0 && !failing.has(i)) end += parseNpyHeader(bytes(out)).dataStart;
      const result = failing.has(i) ? { error: `cannot decode input ${i}` } : { row: row++ };
      expect(Object.keys(e)).toEqual(['input', 'size', 'mtimeMs', ...Object.keys(result), 'end']);
      expect(e).toEqual({ input: items[i]!.label, size: 10 + i, mtimeMs: Date.UTC(2024, 0, 1, 0, 0, i, 250), ...result, end });
    });
    // the last entry ends where the data ends (but for .json's closing bracket)
    expect(entries[5]!.end).toBe(format === 'json' ? dataSize - 2 : dataSize);
  });

  it.each(FORMATS)('.%s: failures are in the index with their error and not in the data', (format) => {
    const dir = newDir();
    const items = makeItems(dir, 5);
    const failing = new Set([1, 4]);
    const records = recordsOf(items, failing);
    const out = outputIn(dir, format);
    const writer = writeAll(out, items, records, [2]);
    expect(writer.rows).toBe(3);
    expect(writer.failures).toEqual([
      { input: items[1]!.label, error: 'cannot decode input 1' },
      { input: items[4]!.label, error: 'cannot decode input 4' },
    ]);
    const entries = indexEntries(out);
    expect(entries.map((e) => e.error ?? null)).toEqual([null, 'cannot decode input 1', null, null, 'cannot decode input 4']);
    expect(entries.map((e) => e.row ?? null)).toEqual([0, null, 1, 2, null]);
    if (format === 'npy') {
      const npy = readNpy(out);
      expect(npy.shape).toEqual([3, DIM]);
      expect(Buffer.from(bytes(out).subarray(parseNpyHeader(bytes(out)).dataStart)).equals(expectedNpyData(records))).toBe(true);
    } else {
      const text = readFileSync(out, 'utf8');
      expect(text).toBe(format === 'json' ? expectedJson(records) : expectedJsonl(records));
      expect(text).not.toContain(items[1]!.label);
      expect(text).not.toContain(items[4]!.label);
    }
  });

  it('.npy with every input failed leaves no data file, only the index', () => {
    const dir = newDir();
    const items = makeItems(dir, 2);
    const out = outputIn(dir, 'npy');
    const writer = writeAll(out, items, recordsOf(items, new Set([0, 1])));
    expect(writer.rows).toBe(0);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(partialPathOf(out))).toBe(false);
    expect(indexEntries(out).map((e) => e.error)).toEqual(['cannot decode input 0', 'cannot decode input 1']);
  });

  it('.npy and .json grow as .partial until finish()', () => {
    for (const format of ['npy', 'json'] as const) {
      const dir = newDir();
      const items = makeItems(dir, 4);
      const out = outputIn(dir, format);
      const writer = EmbeddingWriter.open(out, items);
      writer.write(recordsOf(items).slice(0, 2));
      expect(existsSync(out)).toBe(false);
      expect(existsSync(partialPathOf(out))).toBe(true);
      expect(writer.dataPath).toBe(partialPathOf(out));
      writer.write(recordsOf(items).slice(2));
      writer.finish();
      expect(existsSync(out)).toBe(true);
      expect(existsSync(partialPathOf(out))).toBe(false);
    }
  });

  it('without an output, records go to stdout as JSON lines and nothing is indexed', () => {
    const dir = newDir();
    const items = makeItems(dir, 3);
    const records = recordsOf(items, new Set([1]));
    let text = '';
    const writer = EmbeddingWriter.open(undefined, items, { stdout: (t) => (text += t) });
    expect(writer.format).toBe('jsonl');
    writer.write(records.slice(0, 2));
    writer.write(records.slice(2));
    writer.finish();
    expect(text).toBe(expectedJsonl(records));
    expect(writer.rows).toBe(2);
    expect(writer.failures).toEqual([{ input: items[1]!.label, error: 'cannot decode input 1' }]);
  });

  it('.npy refuses a record of another shape, in a later batch or the same one', () => {
    const dir = newDir();
    const items = makeItems(dir, 3);
    const out = outputIn(dir, 'npy');
    const writer = EmbeddingWriter.open(out, items);
    writer.write([{ item: items[0]!, values: valuesOf(0, 4), shape: [4] }]);
    const err = corpusError(() => writer.write([{ item: items[1]!, values: valuesOf(1, 6), shape: [2, 3] }]));
    expect(err.code).toBe('npy_shape');
    expect(err.message).toMatch(/differ in shape \(\[4\], then \[2, 3\]/);
    expect(err.message).toMatch(/write \.json or \.jsonl instead/);
    expect(err.message).not.toContain('\n');
    writer.close();
    // nothing of the refused batch reached the index
    expect(indexEntries(out)).toHaveLength(1);

    const dir2 = newDir();
    const items2 = makeItems(dir2, 2);
    const w2 = EmbeddingWriter.open(outputIn(dir2, 'npy'), items2);
    expect(
      corpusError(() =>
        w2.write([
          { item: items2[0]!, values: valuesOf(0, 4), shape: [4] },
          { item: items2[1]!, values: valuesOf(1, 5), shape: [5] },
        ]),
      ).code,
    ).toBe('npy_shape');
    w2.close();
  });

  it('a write error is a one-line CorpusError saying what was kept and to --resume', () => {
    const dir = newDir();
    const items = makeItems(dir, 3);
    const out = outputIn(dir, 'jsonl');
    symlinkSync('/dev/full', out); // every write to it fails with ENOSPC
    const writer = EmbeddingWriter.open(out, items);
    const err = corpusError(() => writer.write(recordsOf(items).slice(0, 2)));
    writer.close();
    expect([err.code, err.kind]).toEqual(['write_failed', 'io']);
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect(err.message).toBe(
      `-o ${out}: the disk is full (ENOSPC) after 0 of 3 inputs; what was written is intact: free some space and run the same command with --resume`,
    );
    expect(indexEntries(out)).toHaveLength(0); // the index waits for the data
  });
});

describe('EmbeddingWriter --resume', () => {
  /** An uninterrupted reference run of the same inputs, in its own folder's files (ref.*). */
  function reference(dir: string, format: OutputFormat, items: readonly CorpusItem[], records: readonly CorpusRecord[]) {
    const ref = outputIn(dir, format, 'ref');
    writeAll(ref, items, records, [2]);
    // The reference itself is checked against bytes computed without the writer.
    if (format === 'jsonl') expect(readFileSync(ref, 'utf8')).toBe(expectedJsonl(records));
    if (format === 'json') expect(readFileSync(ref, 'utf8')).toBe(expectedJson(records));
    if (format === 'npy')
      expect(
        bytes(ref)
          .subarray(parseNpyHeader(bytes(ref)).dataStart)
          .equals(expectedNpyData(records)),
      ).toBe(true);
    return { data: bytes(ref), index: bytes(indexPathOf(ref)) };
  }

  /** Writes the first `batchesDone` batches of 2 and stops without finish() or close(), as a kill would. */
  function interrupted(out: string, items: readonly CorpusItem[], records: readonly CorpusRecord[], batchesDone: number): void {
    const writer = EmbeddingWriter.open(out, items);
    for (const b of batches(records, [2]).slice(0, batchesDone)) writer.write(b);
    // no close: the fds leak as a killed process's would; nothing more is written through them
  }

  /** Resumes and writes the rest in batches of 3 (batching need not match the first run's). */
  function resumeRest(out: string, items: readonly CorpusItem[], records: readonly CorpusRecord[]): number {
    const writer = EmbeddingWriter.open(out, items, { resume: true });
    const done = writer.done;
    for (const b of batches(records.slice(done), [3])) writer.write(b);
    writer.finish();
    return done;
  }

  it.each(FORMATS)(
    '.%s: after a torn write (garbage data bytes, half an index line) the result is byte-identical to an uninterrupted run',
    (format) => {
      const dir = newDir();
      const items = makeItems(dir, 11);
      const records = recordsOf(items, new Set([2, 7]));
      const ref = reference(dir, format, items, records);

      const out = outputIn(dir, format);
      interrupted(out, items, records, 3); // inputs 0-5 written and indexed
      const data = format === 'jsonl' ? out : partialPathOf(out);
      // a torn batch: some of its data and part of its first index line
      appendFileSync(data, Buffer.from('{"input":"torn\u0000\u00ff garbage', 'latin1'));
      const nextLine = ref.index.toString('utf8').split('\n')[6]!;
      appendFileSync(indexPathOf(out), nextLine.slice(0, Math.floor(nextLine.length / 2)));
      // negative control: the torn state is not already the reference
      expect(bytes(data).equals(ref.data)).toBe(false);
      expect(readIndex(indexPathOf(out))!.entries).toHaveLength(6);

      const done = resumeRest(out, items, records);
      expect(done).toBe(6);
      expect(existsSync(partialPathOf(out))).toBe(false);
      expect(bytes(out).equals(ref.data)).toBe(true);
      expect(bytes(indexPathOf(out)).toString('utf8')).toBe(ref.index.toString('utf8'));
    },
  );

  it.each(FORMATS)('.%s: index lines whose data is missing (data shorter than the index says) are redone', (format) => {
    const dir = newDir();
    const items = makeItems(dir, 8);
    const records = recordsOf(items);
    const ref = reference(dir, format, items, records);
    const out = outputIn(dir, format);
    interrupted(out, items, records, 3);
    const data = format === 'jsonl' ? out : partialPathOf(out);
    const entries = readIndex(indexPathOf(out))!.entries;
    truncateSync(data, entries[4]!.end - 1); // input 4's bytes are short: 4 and 5 are redone
    const done = resumeRest(out, items, records);
    expect(done).toBe(4);
    expect(bytes(out).equals(ref.data)).toBe(true);
    expect(bytes(indexPathOf(out)).equals(ref.index)).toBe(true);
  });

  it.each(FORMATS)('.%s: interrupted before the first batch (an empty index) starts again from input 1', (format) => {
    const dir = newDir();
    const items = makeItems(dir, 4);
    const records = recordsOf(items);
    const ref = reference(dir, format, items, records);
    const out = outputIn(dir, format);
    interrupted(out, items, records, 0);
    appendFileSync(format === 'jsonl' ? out : partialPathOf(out), 'junk');
    expect(resumeRest(out, items, records)).toBe(0);
    expect(bytes(out).equals(ref.data)).toBe(true);
    expect(bytes(indexPathOf(out)).equals(ref.index)).toBe(true);
  });

  it.each(FORMATS)('.%s: resumed twice (killed again after resuming) still ends byte-identical', (format) => {
    const dir = newDir();
    const items = makeItems(dir, 12);
    const records = recordsOf(items, new Set([0, 5]));
    const ref = reference(dir, format, items, records);
    const out = outputIn(dir, format);
    interrupted(out, items, records, 2); // 4 inputs
    // second run: resumes, writes 3 more inputs, is killed
    const second = EmbeddingWriter.open(out, items, { resume: true });
    expect(second.done).toBe(4);
    second.write(records.slice(4, 7));
    appendFileSync(indexPathOf(out), '{"input":"');
    // third run finishes
    expect(resumeRest(out, items, records)).toBe(7);
    expect(bytes(out).equals(ref.data)).toBe(true);
    expect(bytes(indexPathOf(out)).equals(ref.index)).toBe(true);
  });

  it.each(FORMATS)('.%s: a finished output resumed with more inputs appended continues it', (format) => {
    const dir = newDir();
    const items = makeItems(dir, 9);
    const records = recordsOf(items, new Set([6]));
    const ref = reference(dir, format, items, records);
    const out = outputIn(dir, format);
    writeAll(out, items.slice(0, 5), records.slice(0, 5), [2]);
    // negative control: the shorter output is complete and differs from the longer reference
    expect(bytes(out).equals(ref.data)).toBe(false);
    if (format === 'npy') expect(readNpy(out).shape).toEqual([5, DIM]);
    expect(resumeRest(out, items, records)).toBe(5);
    expect(bytes(out).equals(ref.data)).toBe(true);
    expect(bytes(indexPathOf(out)).equals(ref.index)).toBe(true);
    if (format === 'npy') expect(readNpy(out).shape).toEqual([8, DIM]);
  });

  it.each(FORMATS)('.%s: resuming a finished output with the same inputs changes nothing', (format) => {
    const dir = newDir();
    const items = makeItems(dir, 5);
    const records = recordsOf(items);
    const out = outputIn(dir, format);
    writeAll(out, items, records);
    const before = { data: bytes(out), index: bytes(indexPathOf(out)) };
    const writer = EmbeddingWriter.open(out, items, { resume: true });
    expect(writer.done).toBe(5);
    expect(writer.rows).toBe(5);
    writer.finish();
    expect(bytes(out).equals(before.data)).toBe(true);
    expect(bytes(indexPathOf(out)).equals(before.index)).toBe(true);
  });

  it("the resumed writer counts the earlier run's rows and failures", () => {
    const dir = newDir();
    const items = makeItems(dir, 6);
    const records = recordsOf(items, new Set([1]));
    const out = outputIn(dir, 'jsonl');
    interrupted(out, items, records, 2);
    const writer = EmbeddingWriter.open(out, items, { resume: true });
    expect(writer.done).toBe(4);
    expect(writer.rows).toBe(3);
    expect(writer.failures).toEqual([{ input: items[1]!.label, error: 'cannot decode input 1' }]);
    writer.close();
  });

  it('--resume with neither output nor index starts a fresh run', () => {
    const dir = newDir();
    const items = makeItems(dir, 3);
    const records = recordsOf(items);
    const ref = reference(dir, 'npy', items, records);
    const out = outputIn(dir, 'npy');
    expect(resumeRest(out, items, records)).toBe(0);
    expect(bytes(out).equals(ref.data)).toBe(true);
  });

  describe('refusals', () => {
    function indexedRun(format: OutputFormat = 'npy') {
      const dir = newDir();
      const items = makeItems(dir, 6);
      const out = outputIn(dir, format);
      interrupted(out, items, recordsOf(items), 2);
      return { dir, items, out };
    }

    it('a different input in the indexed prefix', () => {
      const { dir, items, out } = indexedRun();
      const other = [...items];
      other[2] = itemFile(dir, 'other.img', 2);
      const err = corpusError(() => EmbeddingWriter.open(out, other, { resume: true }));
      expect(err.code).toBe('resume_mismatch');
      expect(err.message).toBe(
        `--resume: input 3 was ${items[2]!.label} in ${out} but is ${other[2]!.label} now; give the same inputs in the same order, or run without --resume`,
      );
    });

    it('the same inputs in another order', () => {
      const { items, out } = indexedRun('jsonl');
      const swapped = [items[1]!, items[0]!, ...items.slice(2)];
      expect(corpusError(() => EmbeddingWriter.open(out, swapped, { resume: true })).message).toMatch(
        /^--resume: input 1 was .*in-000\.img in .* but is .*in-001\.img now/,
      );
    });

    it('fewer inputs than the output holds', () => {
      const { items, out } = indexedRun();
      const err = corpusError(() => EmbeddingWriter.open(out, items.slice(0, 3), { resume: true }));
      expect(err.code).toBe('resume_mismatch');
      expect(err.message).toBe(`--resume: ${out} holds 4 inputs but this run has 3; give the same inputs, or run without --resume`);
    });

    it('an input changed since (mtime, then size)', () => {
      const { items, out } = indexedRun('json');
      const t = new Date(Date.UTC(2025, 5, 1));
      utimesSync(items[1]!.label, t, t);
      const err = corpusError(() => EmbeddingWriter.open(out, items, { resume: true }));
      expect(err.code).toBe('resume_changed');
      expect(err.message).toBe(`--resume: ${items[1]!.label} changed (size or mtime) since it was embedded into ${out}; run without --resume`);

      const { items: items2, out: out2 } = indexedRun('jsonl');
      const st = new Date(Date.UTC(2024, 0, 1, 0, 0, 3, 250));
      writeFileSync(items2[3]!.label, 'y'.repeat(99)); // other size, mtime put back
      utimesSync(items2[3]!.label, st, st);
      expect(corpusError(() => EmbeddingWriter.open(out2, items2, { resume: true })).code).toBe('resume_changed');
    });

    it('a change after the indexed prefix is no concern of --resume', () => {
      const { items, out } = indexedRun();
      const t = new Date(Date.UTC(2025, 5, 1));
      utimesSync(items[5]!.label, t, t); // input 6 was never written
      const writer = EmbeddingWriter.open(out, items, { resume: true });
      expect(writer.done).toBe(4);
      writer.close();
    });

    it.each(FORMATS)('.%s: an output without an index (not written by a resumable run)', (format) => {
      const dir = newDir();
      const items = makeItems(dir, 2);
      const out = outputIn(dir, format);
      writeFileSync(out, 'written by something else');
      const err = corpusError(() => EmbeddingWriter.open(out, items, { resume: true }));
      expect([err.code, err.kind]).toEqual(['resume_no_index', 'input']);
      expect(err.message).toBe(
        `--resume: ${out} has no index (${indexPathOf(out)}), so it was not written by a resumable run; remove it or run without --resume`,
      );
      expect(readFileSync(out, 'utf8')).toBe('written by something else'); // left alone
    });

    it('a .partial without an index', () => {
      const dir = newDir();
      const items = makeItems(dir, 2);
      const out = outputIn(dir, 'npy');
      writeFileSync(partialPathOf(out), 'x');
      expect(corpusError(() => EmbeddingWriter.open(out, items, { resume: true })).code).toBe('resume_no_index');
    });

    it('a .npy partial that does not hold the rows its index lists', () => {
      const { items, out } = indexedRun('npy');
      // the last indexed row is cut short, and the index made to agree on where the data ends
      const lines = readFileSync(indexPathOf(out), 'utf8').split('\n').filter(Boolean);
      const last = JSON.parse(lines[3]!) as { end: number };
      lines[3] = JSON.stringify({ ...last, end: last.end - 4 });
      writeFileSync(indexPathOf(out), `${lines.join('\n')}\n`);
      truncateSync(partialPathOf(out), last.end - 4);
      const err = corpusError(() => EmbeddingWriter.open(out, items, { resume: true }));
      expect(err.code).toBe('resume_corrupt');
      expect(err.message).toBe(`--resume: ${partialPathOf(out)} does not hold the 4 rows its index lists; remove it and run without --resume`);
    });
  });
});
