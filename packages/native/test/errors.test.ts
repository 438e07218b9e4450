// NativeError is a JepaError: (code, message), and a kind from its code, whether the addon's C++ or
// this package throws it. The addon builds its errors in the old (message, code) order.
import { JepaError, errorKind, isUserFacing } from '@jepa/errors';
import { describe, expect, it } from 'vitest';
import { NativeError, createContext, resolveDevice, typeByName } from '../src/index.js';
import { nativeErrorFromAddon } from '../src/errors.js';
import { F32 } from './helpers.js';

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('NativeError', () => {
  it('takes (code, message) and derives the kind from the code', () => {
    const cases: [ConstructorParameters<typeof NativeError>[0], string][] = [
      ['BAD_SHAPE', 'input'],
      ['BAD_OPTION', 'input'],
      ['IO', 'io'],
      ['NO_DEVICE', 'not_found'],
      ['NOT_BUILT', 'unavailable'],
      ['OUT_OF_MEMORY', 'budget'],
      ['DEADLINE', 'timeout'],
      ['DISPOSED', 'internal'],
      ['COMPUTE', 'internal'],
      ['NATIVE', 'internal'],
    ];
    for (const [code, kind] of cases) {
      const err = new NativeError(code, `m ${code}`);
      expect([err.code, err.message, err.kind, err.name]).toEqual([code, `m ${code}`, kind, 'NativeError']);
      expect(err).toBeInstanceOf(JepaError);
    }
    expect(new NativeError('BAD_SHAPE', 'm', { kind: 'budget' }).kind).toBe('budget');
  });

  it('a swapped argument order does not typecheck', () => {
    // @ts-expect-error the message is not a NativeErrorCode
    const swapped = new NativeError('3 values are not a whole number of q8_0 blocks', 'BAD_SHAPE');
    expect(swapped.code).not.toBe('BAD_SHAPE');
  });

  it("the addon's (message, code) becomes NativeError(code, message), also under `new` as the C++ calls it", () => {
    const Make = nativeErrorFromAddon as unknown as new (message: string, code: string) => NativeError;
    const err = new Make('the graph ran past its deadline', 'DEADLINE');
    expect(err).toBeInstanceOf(NativeError);
    expect([err.code, err.message, err.kind]).toEqual(['DEADLINE', 'the graph ran past its deadline', 'timeout']);
  });

  it('errors thrown by the addon are NativeErrors with their kind', () => {
    const ctx = createContext(8);
    const shape = thrown(() => ctx.add(ctx.newTensor(F32, [3, 2]), ctx.newTensor(F32, [4, 2])));
    expect(shape).toBeInstanceOf(NativeError);
    expect(shape).toMatchObject({ name: 'NativeError', code: 'BAD_SHAPE', kind: 'input' });
    expect(isUserFacing(shape)).toBe(true);
    const t = ctx.newTensor(F32, [4]);
    t.dispose();
    const disposed = thrown(() => t.ne);
    expect(disposed).toMatchObject({ code: 'DISPOSED', kind: 'internal' });
    expect(errorKind(disposed)).toBe('internal');
    expect(isUserFacing(disposed)).toBe(false);
    ctx.dispose();
  });

  it("this package's own refusals carry their codes", () => {
    expect(thrown(() => typeByName('f7'))).toMatchObject({ code: 'BAD_TYPE', kind: 'input', message: "ggml has no type named 'f7'" });
    expect(thrown(() => resolveDevice('tpu'))).toMatchObject({ code: 'NO_DEVICE', kind: 'not_found' });
  });
});
