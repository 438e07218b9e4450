// Writes a corpus's embeddings as they are produced, with an index that makes the output resumable:
// each batch's data is written and synced first, then its index lines, so after a kill, a crash or a
// full disk the index names exactly the inputs whose bytes are on disk. --resume truncates anything
// past the last indexed byte and carries on, and the finished files equal those of one unbroken run.
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { npyHeader, parseNpyHeader } from '@jepa/preprocess';
import type { CorpusItem, CorpusRecord } from '../embed/corpus-item.js';
import { CorpusError } from '../errors.js';
import { indexPathOf, outputFormat, partialPathOf, recordJson, type OutputFormat } from './format.js';
import { indexLine, readIndex, type IndexEntry } from './index-file.js';
import { identityOf, sameIdentity } from './item-identity.js';

/** Rows the .npy header can count up to without changing length: the count is rewritten in place. */
const MAX_ROWS = 999_999_999_999;

export interface WriterOptions {
  /** Keep what an earlier run of the same inputs wrote, and continue after it. */
  resume?: boolean;
  /** Where text goes when there is no output file (default: stdout). */
  stdout?: (text: string) => void;
}

export interface WrittenFailure {
  input: string;
  error: string;
}

export class EmbeddingWriter {
  readonly format: OutputFormat;
  /** Inputs an earlier run already wrote; the caller skips them. */
  readonly done: number;
  readonly failures: WrittenFailure[] = [];
  rows = 0;
  #dataFd = -1;
  #indexFd = -1;
  #dataEnd = 0;
  #rowShape: number[] | null = null;
  #written = 0;
  readonly #items: readonly CorpusItem[];
  readonly #stdout: (text: string) => void;

  private constructor(
    readonly output: string | undefined,
    items: readonly CorpusItem[],
    options: WriterOptions,
  ) {
    this.format = outputFormat(output);
    this.#items = items;
    this.#stdout = options.stdout ?? ((text) => process.stdout.write(text));
    this.done = output === undefined ? 0 : this.#open(output, options.resume === true);
    this.#written = this.done;
  }

  static open(output: string | undefined, items: readonly CorpusItem[], options: WriterOptions = {}): EmbeddingWriter {
    return new EmbeddingWriter(output, items, options);
  }

  get dataPath(): string | undefined {
    if (this.output === undefined) return undefined;
    return this.format === 'jsonl' ? this.output : partialPathOf(this.output);
  }

  /** Appends one batch of records (in input order, following those already written) and syncs it. */
  write(records: readonly CorpusRecord[]): void {
    if (this.output === undefined) {
      let text = '';
      for (const r of records) {
        if ('error' in r) this.failures.push({ input: r.item.label, error: r.error });
        else {
          text += `${recordJson(r.item.label, r.values, r.shape, r.item.meta)}\n`;
          this.rows++;
        }
      }
      if (text) this.#stdout(text);
      return;
    }
    const chunks: Uint8Array[] = [];
    let lines = '';
    let end = this.#dataEnd;
    let rows = this.rows;
    const failures: WrittenFailure[] = [];
    for (const r of records) {
      const identity = identityOf(r.item.source ?? r.item.label);
      if ('error' in r) {
        failures.push({ input: r.item.label, error: r.error });
        lines += indexLine(r.item.label, identity, { error: r.error }, end, r.item.meta);
        continue;
      }
      const bytes = this.#encode(r, rows, end);
      chunks.push(bytes);
      end += bytes.length;
      lines += indexLine(r.item.label, identity, { row: rows }, end, r.item.meta);
      rows++;
    }
    this.#guard(() => {
      this.#writeAt(this.#dataFd, chunks, this.#dataEnd);
      if (chunks.length > 0) fdatasyncSync(this.#dataFd);
      this.#append(this.#indexFd, Buffer.from(lines, 'utf8'));
      fdatasyncSync(this.#indexFd);
    });
    this.#dataEnd = end;
    this.rows = rows;
    this.failures.push(...failures);
    this.#written += records.length;
  }

  /** Completes the output: the .npy header gets its row count, .json its closing bracket, and both their names. */
  finish(): void {
    if (this.output === undefined) return;
    const output = this.output;
    this.#guard(() => {
      if (this.format === 'npy' && this.#rowShape) {
        this.#writeAt(this.#dataFd, [this.#header(this.rows)], 0);
        fdatasyncSync(this.#dataFd);
      } else if (this.format === 'json') {
        this.#writeAt(this.#dataFd, [Buffer.from(']\n')], this.#dataEnd);
        fdatasyncSync(this.#dataFd);
      }
    });
    this.close();
    if (this.format === 'npy' && !this.#rowShape) rmSync(partialPathOf(output), { force: true });
    else if (this.format !== 'jsonl') renameSync(partialPathOf(output), output);
  }

  /** Closes the files and leaves what was written, resumable. */
  close(): void {
    if (this.#dataFd >= 0) closeSync(this.#dataFd);
    if (this.#indexFd >= 0) closeSync(this.#indexFd);
    this.#dataFd = -1;
    this.#indexFd = -1;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #encode(r: { item: CorpusItem; values: Float32Array; shape: number[] }, row: number, end: number): Uint8Array {
    if (this.format === 'jsonl') return Buffer.from(`${recordJson(r.item.label, r.values, r.shape, r.item.meta)}\n`, 'utf8');
    if (this.format === 'json') return Buffer.from(`${row > 0 ? ',' : ''}${recordJson(r.item.label, r.values, r.shape, r.item.meta)}`, 'utf8');
    const values = new Uint8Array(r.values.buffer, r.values.byteOffset, r.values.byteLength);
    if (this.#rowShape === null) {
      this.#rowShape = r.shape.slice();
      const header = this.#header(0);
      const out = new Uint8Array(header.length + values.length);
      out.set(header);
      out.set(values, header.length);
      if (end !== 0) throw new Error('EmbeddingWriter: the .npy header must come first');
      return out;
    }
    if (this.#rowShape.join() !== r.shape.join())
      throw new CorpusError(
        'npy_shape',
        `-o ${this.output}: the embeddings differ in shape ([${this.#rowShape.join(', ')}], then [${r.shape.join(', ')}]: token counts vary with input size); write .json or .jsonl instead`,
      );
    return values;
  }

  #header(rows: number): Uint8Array {
    const shape = this.#rowShape!;
    const longest = npyHeader('float32', [MAX_ROWS, ...shape]).length;
    return npyHeader('float32', [rows, ...shape], longest);
  }

  #open(output: string, resume: boolean): number {
    const indexPath = indexPathOf(output);
    const partialPath = partialPathOf(output);
    const previous = resume ? resumableEntries(output, this.#items) : null;
    if (previous === null) {
      rmSync(partialPath, { force: true });
      // The index first: a run killed between the two opens leaves an empty index, which --resume
      // continues, rather than a data file without one, which --resume refuses.
      this.#indexFd = this.#guardOpen(indexPath, 'w');
      this.#dataFd = this.#guardOpen(this.format === 'jsonl' ? output : partialPath, 'w');
      if (this.format === 'json') this.#start();
      return 0;
    }
    const dataPath = this.format === 'jsonl' ? output : partialPath;
    if (this.format !== 'jsonl' && !existsSync(partialPath) && existsSync(output)) renameSync(output, partialPath);
    const dataSize = existsSync(dataPath) ? statSync(dataPath).size : 0;
    let kept = previous.entries.length;
    while (kept > 0 && previous.entries[kept - 1]!.end > dataSize) kept--;
    const entries = previous.entries.slice(0, kept);
    this.#dataFd = this.#guardOpen(dataPath, existsSync(dataPath) ? 'r+' : 'w');
    // 'a': index lines are appended after the kept ones (an 'r+' fd would write them from byte 0).
    this.#indexFd = this.#guardOpen(indexPath, 'a');
    this.#guard(() => ftruncateSync(this.#indexFd, kept > 0 ? previous.bytes[kept - 1]! : 0));
    const end = kept > 0 ? entries[kept - 1]!.end : 0;
    this.#guard(() => ftruncateSync(this.#dataFd, end));
    this.#dataEnd = end;
    for (const e of entries) if (e.error !== undefined) this.failures.push({ input: e.input, error: e.error });
    this.rows = entries.filter((e) => e.error === undefined).length;
    if (this.format === 'json' && end === 0) this.#start();
    if (this.format === 'npy' && end > 0) this.#readNpyShape(output);
    return kept;
  }

  #start(): void {
    this.#guard(() => this.#writeAt(this.#dataFd, [Buffer.from('[')], 0));
    this.#dataEnd = 1;
  }

  #readNpyShape(output: string): void {
    const head = Buffer.alloc(Math.min(this.#dataEnd, 65_546));
    readSync(this.#dataFd, head, 0, head.length, 0);
    const { dtype, shape, dataStart } = parseNpyHeader(head);
    const rowBytes = shape.slice(1).reduce((a, b) => a * b, 1) * 4;
    if (dtype !== 'float32' || dataStart + this.rows * rowBytes !== this.#dataEnd)
      throw new CorpusError(
        'resume_corrupt',
        `--resume: ${partialPathOf(output)} does not hold the ${this.rows} rows its index lists; remove it and run without --resume`,
      );
    this.#rowShape = shape.slice(1);
  }

  #writeAt(fd: number, chunks: readonly Uint8Array[], position: number): void {
    let at = position;
    for (const chunk of chunks) {
      let off = 0;
      while (off < chunk.length) {
        const n = writeSync(fd, chunk, off, chunk.length - off, at);
        off += n;
        at += n;
      }
    }
  }

  #append(fd: number, bytes: Uint8Array): void {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
  }

  #guardOpen(path: string, flags: string): number {
    let fd = -1;
    this.#guard(() => {
      fd = openSync(path, flags);
    });
    return fd;
  }

  /** Turns a failed write into one line that says what was kept and what to do. */
  #guard(io: () => void): void {
    try {
      io();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (typeof code !== 'string' || err instanceof CorpusError) throw err;
      const reason = WRITE_ERRORS[code] ?? `${code} (${(err as Error).message})`;
      const hint = code === 'ENOSPC' || code === 'EDQUOT' ? 'free some space and' : 'fix that and';
      throw new CorpusError(
        'write_failed',
        `-o ${this.output}: ${reason} after ${this.#written} of ${this.#items.length} inputs; what was written is intact: ${hint} run the same command with --resume`,
        { cause: err },
      );
    }
  }
}

/**
 * What an earlier run of these inputs left in OUT's index (null: nothing, so a fresh start), after
 * checking that it can be continued: refuses an output without an index, and an index of other inputs.
 */
export function resumableEntries(output: string, items: readonly CorpusItem[]): { entries: IndexEntry[]; bytes: number[] } | null {
  const indexPath = indexPathOf(output);
  const previous = readIndex(indexPath);
  if (previous === null && (existsSync(output) || existsSync(partialPathOf(output))))
    throw new CorpusError(
      'resume_no_index',
      `--resume: ${output} has no index (${indexPath}), so it was not written by a resumable run; remove it or run without --resume`,
    );
  if (previous) checkSameInputs(output, previous.entries, items);
  return previous;
}

function checkSameInputs(output: string, entries: readonly IndexEntry[], items: readonly CorpusItem[]): void {
  if (entries.length > items.length)
    throw new CorpusError(
      'resume_mismatch',
      `--resume: ${output} holds ${entries.length} inputs but this run has ${items.length}; give the same inputs, or run without --resume`,
    );
  entries.forEach((e, i) => {
    const item = items[i]!;
    if (e.input !== item.label)
      throw new CorpusError(
        'resume_mismatch',
        `--resume: input ${i + 1} was ${e.input} in ${output} but is ${item.label} now; give the same inputs in the same order, or run without --resume`,
      );
    if (!sameIdentity(identityOf(item.source ?? item.label), e))
      throw new CorpusError(
        'resume_changed',
        `--resume: ${item.source ?? item.label} changed (size or mtime) since it was embedded into ${output}; run without --resume`,
      );
  });
}

const WRITE_ERRORS: Record<string, string> = {
  ENOSPC: 'the disk is full (ENOSPC)',
  EDQUOT: 'the disk quota is used up (EDQUOT)',
  EFBIG: 'the file grew past the size this system allows (EFBIG)',
  EIO: 'the disk reported an I/O error (EIO)',
  EROFS: 'the file system is read-only (EROFS)',
  EACCES: 'permission denied (EACCES)',
};
