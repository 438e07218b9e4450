import { expect } from 'vitest';
import { GgufError, type GgufErrorCode } from '../src/errors.js';
import { bufferSource, type ByteSource } from '../src/gguf/byte-source.js';
import { readGgufFromSource } from '../src/gguf/reader.js';
import { schemaReadOptions } from '../src/schema/read-policy.js';
import type { ModelSpec } from '../src/schema/model-spec.js';
import { validateModel } from '../src/validate/validate-model.js';

export const HEADER_WINDOW = 64 * 1024;

/** A ByteSource that records every read, to prove that parsing touches the header only. */
export function countingSource(bytes: Uint8Array): ByteSource & { reads: { position: number; length: number }[]; bytesRead: () => number } {
  const inner = bufferSource(bytes);
  const reads: { position: number; length: number }[] = [];
  return {
    size: inner.size,
    reads,
    bytesRead: () => reads.reduce((n, r) => n + r.length, 0),
    read(position, length) {
      reads.push({ position, length });
      return inner.read(position, length);
    },
  };
}

/** Parses and validates bytes through a counting source. */
export function load(bytes: Uint8Array): { spec: ModelSpec; source: ReturnType<typeof countingSource> } {
  const source = countingSource(bytes);
  const header = readGgufFromSource(source, schemaReadOptions());
  return { spec: validateModel(header, bytes.byteLength), source };
}

/**
 * Asserts that loading `bytes` is refused with `code`, and that nothing was sized by a tensor: every read the
 * reader made is at most its 64 KiB header window, whatever the header claims (forged files hold 70–260 KiB of tensors).
 * Loads as `loadModelSpec` does (under the schema's read policy), or with `plain`, with every value materialised.
 */
export function expectRefused(bytes: Uint8Array, code: GgufErrorCode, message?: RegExp, plain = false): GgufError {
  const source = countingSource(bytes);
  let caught: unknown;
  try {
    validateModel(readGgufFromSource(source, plain ? {} : schemaReadOptions()), bytes.byteLength);
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected a GgufError ${code}`).toBeInstanceOf(GgufError);
  const err = caught as GgufError;
  expect(err.code, err.message).toBe(code);
  if (message) expect(err.message).toMatch(message);
  expect(Math.max(0, ...source.reads.map((r) => r.length))).toBeLessThanOrEqual(HEADER_WINDOW);
  return err;
}
