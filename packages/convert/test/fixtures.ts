import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ConvertError, ConvertErrorCode } from '../src/index.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'convert');

export function fixturePath(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}

/** What gen_reader_fixtures.py recorded for one tensor. */
export interface ExpectedTensor {
  dtype: string;
  shape: number[];
  strides: number[];
  storageOffset: number;
  hex: string;
  f32hex: string;
}

export interface Manifest {
  torch: Record<string, Record<string, ExpectedTensor>>;
  safetensors: Record<string, Record<string, ExpectedTensor>>;
  scalars: { epoch: number; loss: number; batch_size: number; huge: string; negative: number };
}

export const manifest = JSON.parse(readFileSync(fixturePath('manifest.json'), 'utf8')) as Manifest;

export function hexOf(data: ArrayBufferView): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('hex');
}

/** Writes bytes to a fresh temporary file and returns its path. */
export function tempFile(name: string, bytes: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'jepa-convert-'));
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'jepa-convert-'));
}

export async function expectConvertError(
  promise: Promise<unknown> | (() => unknown),
  code: ConvertErrorCode,
  message?: RegExp,
): Promise<ConvertError> {
  let error: unknown;
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (e) {
    error = e;
  }
  expect(error, `expected ConvertError ${code}`).toBeInstanceOf(Error);
  expect((error as Error).name).toBe('ConvertError');
  expect((error as ConvertError).code, (error as Error).message).toBe(code);
  if (message) expect((error as Error).message).toMatch(message);
  return error as ConvertError;
}

/** A safetensors file from a header object and a data section. */
export function safetensorsBytes(header: unknown, data: Uint8Array = new Uint8Array(0), rawHeader?: string): Uint8Array {
  const text = new TextEncoder().encode(rawHeader ?? JSON.stringify(header));
  const out = new Uint8Array(8 + text.byteLength + data.byteLength);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.byteLength), true);
  out.set(text, 8);
  out.set(data, 8 + text.byteLength);
  return out;
}
