import { GgufError, type GgufErrorCode } from '../errors.js';
import { mulberry32 } from '../forge/rng.js';
import { bufferSource } from '../gguf/byte-source.js';
import { readGgufFromSource } from '../gguf/reader.js';
import { schemaReadOptions } from '../schema/read-policy.js';
import { validateModel } from '../validate/validate-model.js';
import { seedCorpus } from './corpus.js';
import { MUTATORS, MUTATOR_NAMES, type MutatorName } from './mutate.js';

/** Reads allowed per input beyond the file itself: one header window of read-ahead. */
const READ_SLACK = 64 * 1024;

export interface Finding {
  readonly index: number;
  readonly mutator: MutatorName;
  readonly bytes: Uint8Array;
  /** 'crash': an exception that is not a GgufError; 'slow': over the per-input budget; 'overread': read more than the file. */
  readonly kind: 'crash' | 'slow' | 'overread';
  readonly detail: string;
}

export interface FuzzStats {
  inputs: number;
  loaded: number;
  refused: Partial<Record<GgufErrorCode, number>>;
  byMutator: Partial<Record<MutatorName, number>>;
  findings: Finding[];
  maxInputMs: number;
}

export interface FuzzOptions {
  seed: number;
  /** Stop after this many inputs … */
  inputs?: number;
  /** … or after this many seconds, whichever comes first. */
  seconds?: number;
  /** An input slower than this is a finding (default 2000 ms). */
  slowMs?: number;
  onFinding?: (f: Finding) => void;
  /** What each input is fed to (default runInput: reader + validator). */
  target?: (bytes: Uint8Array) => ReturnType<typeof runInput>;
}

/**
 * Runs one input through the plain reader (every value materialised) and then through reader + validator as
 * `loadModelSpec` runs them (under the schema's read policy); returns the second outcome, or throws whatever
 * escaped either. `bytesRead` is the larger of the two passes.
 */
export function runInput(bytes: Uint8Array): { loaded: true; bytesRead: number } | { loaded: false; code: GgufErrorCode; bytesRead: number } {
  const inner = bufferSource(bytes);
  let bytesRead = 0;
  const read = (p: number, n: number) => {
    bytesRead += n;
    return inner.read(p, n);
  };
  const source = { size: inner.size, read };
  try {
    readGgufFromSource(source);
  } catch (e) {
    if (!(e instanceof GgufError)) throw e;
  }
  const plainRead = bytesRead;
  bytesRead = 0;
  try {
    validateModel(readGgufFromSource(source, schemaReadOptions()), bytes.byteLength);
    return { loaded: true, bytesRead: Math.max(plainRead, bytesRead) };
  } catch (e) {
    if (e instanceof GgufError) return { loaded: false, code: e.code, bytesRead: Math.max(plainRead, bytesRead) };
    throw e;
  }
}

/** A deterministic mutation campaign over forged models of every family: same seed, same inputs. */
export function runFuzz(opts: FuzzOptions): FuzzStats {
  const rng = mulberry32(opts.seed);
  const corpus = seedCorpus();
  const deadline = opts.seconds === undefined ? Infinity : performance.now() + opts.seconds * 1000;
  const maxInputs = opts.inputs ?? Infinity;
  const slowMs = opts.slowMs ?? 2000;
  const stats: FuzzStats = { inputs: 0, loaded: 0, refused: {}, byMutator: {}, findings: [], maxInputMs: 0 };
  const finding = (f: Finding) => {
    stats.findings.push(f);
    opts.onFinding?.(f);
  };
  while (stats.inputs < maxInputs && performance.now() < deadline) {
    const index = stats.inputs++;
    const mutator = MUTATOR_NAMES[Math.floor(rng() * MUTATOR_NAMES.length)];
    const seed = corpus[Math.floor(rng() * corpus.length)];
    const bytes = MUTATORS[mutator](rng, seed, corpus);
    stats.byMutator[mutator] = (stats.byMutator[mutator] ?? 0) + 1;
    const t0 = performance.now();
    try {
      const r = (opts.target ?? runInput)(bytes);
      if (r.loaded) stats.loaded++;
      else stats.refused[r.code] = (stats.refused[r.code] ?? 0) + 1;
      if (r.bytesRead > bytes.byteLength + READ_SLACK) {
        finding({ index, mutator, bytes, kind: 'overread', detail: `read ${r.bytesRead} bytes of a ${bytes.byteLength}-byte input` });
      }
    } catch (e) {
      finding({ index, mutator, bytes, kind: 'crash', detail: e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e) });
    }
    const ms = performance.now() - t0;
    stats.maxInputMs = Math.max(stats.maxInputMs, ms);
    if (ms > slowMs) finding({ index, mutator, bytes, kind: 'slow', detail: `${ms.toFixed(0)} ms` });
  }
  return stats;
}
