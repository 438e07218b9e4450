// ConvertError is a JepaError whose kind follows from its code: what a front end reports for it.
import { JepaError, isUserFacing } from '@jepa/errors';
import { describe, expect, it } from 'vitest';
import { ConvertError, openCheckpoint, readSafetensorsHeader, type ConvertErrorCode } from '../src/index.js';
import { expectConvertError, safetensorsBytes } from './fixtures.js';

describe('ConvertError', () => {
  it('is a JepaError (code, message, {cause, kind}) named ConvertError', () => {
    const cause = new Error('ENOENT');
    const err = new ConvertError('CONVERT_IO', 'cannot open x', { cause });
    expect(err).toBeInstanceOf(JepaError);
    expect([err.name, err.code, err.message, err.cause]).toEqual(['ConvertError', 'CONVERT_IO', 'cannot open x', cause]);
  });

  it.each<[ConvertErrorCode, string]>([
    ['SAFETENSORS_BAD_HEADER', 'input'],
    ['PICKLE_FORBIDDEN_GLOBAL', 'input'],
    ['CONVERT_IO', 'io'],
    ['CONVERT_TENSOR_TOO_LARGE', 'budget'],
    ['ZIP_ENTRY_TOO_LARGE', 'budget'],
    ['CONVERT_CLOSED', 'internal'],
  ])('%s is of kind %s', (code, kind) => {
    expect(new ConvertError(code, 'm').kind).toBe(kind);
  });

  it("a missing checkpoint is io, a damaged one input: both the user's to fix", async () => {
    const missing = await expectConvertError(openCheckpoint('/nonexistent/model.safetensors'), 'CONVERT_IO');
    expect(missing.kind).toBe('io');
    const bytes = safetensorsBytes({});
    new DataView(bytes.buffer).setBigUint64(0, 2n ** 63n, true);
    const damaged = await expectConvertError(() => readSafetensorsHeader(bytes), 'SAFETENSORS_HEADER_TOO_LARGE');
    expect(damaged.kind).toBe('input');
    expect([isUserFacing(missing), isUserFacing(damaged)]).toEqual([true, true]);
  });
});
