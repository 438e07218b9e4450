// GgufError is a JepaError whose kind follows from its code: what a front end reports for it.
import { JepaError, isUserFacing } from '@jepa/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { GgufError, type GgufErrorCode } from '../src/errors.js';
import { forgeModelBytes } from '../src/forge/forge.js';
import { GgmlType } from '../src/ggml-types.js';
import { readGguf, readGgufFromBuffer } from '../src/gguf/reader.js';
import { GgufWriter } from '../src/gguf/writer.js';

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('GgufError', () => {
  afterEach(() => {
    delete process.env.JEPA_MAX_META_ITEMS;
  });

  it('is a JepaError (code, message, {cause, kind}) named GgufError', () => {
    const cause = new Error('EACCES');
    const err = new GgufError('GGUF_IO', 'cannot open', { cause });
    expect(err).toBeInstanceOf(JepaError);
    expect([err.name, err.code, err.message, err.cause]).toEqual(['GgufError', 'GGUF_IO', 'cannot open', cause]);
  });

  it.each<[GgufErrorCode, string]>([
    ['GGUF_TRUNCATED', 'input'],
    ['JEPA_KEY_MISSING', 'input'],
    ['GGUF_BAD_LIMIT', 'input'],
    ['GGUF_IO', 'io'],
    ['JEPA_BUDGET', 'budget'],
    ['GGUF_WRITE_SIZE', 'internal'],
    ['GGUF_WRITE_STATE', 'internal'],
  ])('%s is of kind %s', (code, kind) => {
    expect(new GgufError(code, 'm').kind).toBe(kind);
  });

  it('a missing file is io; a damaged one is input', () => {
    expect(thrown(() => readGguf('/nonexistent/model.gguf'))).toMatchObject({ code: 'GGUF_IO', kind: 'io' });
    const cut = forgeModelBytes('ijepa').bytes.slice(0, 100);
    const damaged = thrown(() => readGgufFromBuffer(cut));
    expect(damaged).toBeInstanceOf(GgufError);
    expect(damaged).toMatchObject({ kind: 'input' });
    expect(isUserFacing(damaged)).toBe(true);
  });

  it('metadata past JEPA_MAX_META_ITEMS is a budget (set it higher), not a damaged file', () => {
    process.env.JEPA_MAX_META_ITEMS = '2';
    const err = thrown(() => readGgufFromBuffer(forgeModelBytes('vjepa2').bytes));
    expect(err).toMatchObject({ code: 'GGUF_ARRAY_TOO_LONG', kind: 'budget' });
    expect((err as Error).message).toMatch(/JEPA_MAX_META_ITEMS=2/);
  });

  it("the writer's misuse is internal: not the user's to fix", () => {
    const w = GgufWriter.inMemory();
    w.addTensor('t', GgmlType.F32, [2]);
    const err = thrown(() => w.writeTensorData(new Float32Array(3)));
    expect(err).toMatchObject({ code: 'GGUF_WRITE_SIZE', kind: 'internal' });
    expect(isUserFacing(err)).toBe(false);
  });
});
