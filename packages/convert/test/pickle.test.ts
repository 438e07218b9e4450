import { describe, expect, it } from 'vitest';
import { buildWhitelist, isTuple, openCheckpoint, PyObject, unpickle, type PyValue } from '../src/index.js';
import { expectConvertError, fixturePath } from './fixtures.js';

/** Assembles a pickle from opcodes written as strings and byte arrays. */
function pickle(...parts: (string | number[])[]): Uint8Array {
  const bytes: number[] = [];
  for (const part of parts) {
    if (typeof part === 'string') for (const ch of part) bytes.push(ch.charCodeAt(0));
    else bytes.push(...part);
  }
  return new Uint8Array(bytes);
}

function u32(n: number): number[] {
  return [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
}

function shortUnicode(text: string): number[] {
  const bytes = [...new TextEncoder().encode(text)];
  return [0x8c, bytes.length, ...bytes];
}

describe('unpickle refuses every global outside the whitelist, by name, before any call', () => {
  it('refuses the os.system payload of malicious.pt (pickled by CPython as posix.system)', async () => {
    await expectConvertError(openCheckpoint(fixturePath('torch', 'malicious.pt')), 'PICKLE_FORBIDDEN_GLOBAL', /posix\.system/);
  });

  it('refuses os.system named by the protocol-0 GLOBAL opcode', async () => {
    const bytes = pickle('cos\nsystem\n', '(', 'Vecho pwned\n', 'tR.');
    await expectConvertError(() => unpickle(bytes), 'PICKLE_FORBIDDEN_GLOBAL', /os\.system/);
  });

  it('refuses builtins.eval named by STACK_GLOBAL', async () => {
    const bytes = pickle([0x80, 4], shortUnicode('builtins'), shortUnicode('eval'), [0x93], shortUnicode('1+1'), [0x85], 'R.');
    await expectConvertError(() => unpickle(bytes), 'PICKLE_FORBIDDEN_GLOBAL', /builtins\.eval/);
  });

  it('refuses subprocess.Popen even when it is never called', async () => {
    const bytes = pickle([0x80, 2], '}', 'X', u32(1), 'a', 'csubprocess\nPopen\n', 's.');
    await expectConvertError(() => unpickle(bytes), 'PICKLE_FORBIDDEN_GLOBAL', /subprocess\.Popen/);
  });

  it('refuses a name that only looks like a whitelisted one', async () => {
    const bytes = pickle([0x80, 4], shortUnicode('torch._utils'), shortUnicode('_rebuild_tensor_v2.__globals__'), [0x93], '.');
    await expectConvertError(() => unpickle(bytes), 'PICKLE_FORBIDDEN_GLOBAL');
    await expectConvertError(() => unpickle(pickle('ctorch\n_utils._rebuild_tensor_v2\n.')), 'PICKLE_FORBIDDEN_GLOBAL');
  });

  it('refuses every global under an empty whitelist, even OrderedDict', async () => {
    await expectConvertError(
      () => unpickle(pickle('ccollections\nOrderedDict\n)R.'), { globals: buildWhitelist([]) }),
      'PICKLE_FORBIDDEN_GLOBAL',
      /collections\.OrderedDict/,
    );
  });

  it('refuses calling a whitelisted value that is not callable, or a non-global', async () => {
    await expectConvertError(() => unpickle(pickle('ctorch\nfloat32\n)R.')), 'PICKLE_BAD_CALL', /torch\.float32/);
    await expectConvertError(() => unpickle(pickle('Vx\n)R.')), 'PICKLE_BAD_CALL');
  });
});

describe('unpickle plain data', () => {
  it('handles protocol-2 containers, ints, floats, strings, bytes and the memo', () => {
    const bytes = pickle(
      [0x80, 2],
      '}q',
      [0],
      '(',
      'X',
      u32(1),
      'i',
      'K',
      [7],
      'X',
      u32(1),
      'n',
      'J',
      u32(-5 >>> 0),
      'X',
      u32(1),
      'm',
      'M',
      [0x34, 0x12],
      'X',
      u32(1),
      'l',
      [0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1],
      'X',
      u32(1),
      'g',
      [0x8a, 1, 0xff],
      'X',
      u32(1),
      'f',
      'G',
      [0x3f, 0xf8, 0, 0, 0, 0, 0, 0],
      'X',
      u32(1),
      't',
      'K',
      [1],
      'K',
      [2],
      [0x86],
      'X',
      u32(1),
      'b',
      'C',
      [2, 0xde, 0xad],
      'X',
      u32(1),
      'z',
      [0x88],
      'X',
      u32(1),
      'L',
      ']q',
      [1],
      '(',
      'N',
      [0x89],
      'h',
      [1],
      'e',
      'u.',
    );
    const value = unpickle(bytes) as Map<PyValue, PyValue>;
    expect(value.get('i')).toBe(7);
    expect(value.get('n')).toBe(-5);
    expect(value.get('m')).toBe(0x1234);
    expect(value.get('l')).toBe(2n ** 64n);
    expect(value.get('g')).toBe(-1);
    expect(value.get('f')).toBe(1.5);
    expect(isTuple(value.get('t')!)).toBe(true);
    expect([...(value.get('t') as PyValue[])]).toEqual([1, 2]);
    expect(value.get('b')).toEqual(new Uint8Array([0xde, 0xad]));
    expect(value.get('z')).toBe(true);
    const list = value.get('L') as PyValue[];
    expect(list[0]).toBeNull();
    expect(list[1]).toBe(false);
    expect(list[2]).toBe(list); // BINGET of the list itself: a cycle, as Python allows
  });

  it('handles protocol-0 text opcodes', () => {
    const bytes = pickle(
      '(dp0\n',
      'Va\n',
      'I42\n',
      's',
      'Vb\n',
      'F-0.25\n',
      's',
      'Vc\n',
      'L123456789012345678901L\n',
      's',
      'Vd\n',
      'I01\n',
      's',
      'Ve\n',
      'g0\n',
      's',
      'Vf\n',
      '(I1\nI2\nl',
      's',
      'Vg\n',
      '(I1\nt',
      's',
      'Vh\n',
      'Vcaf\\u00e9 \\U0001f600\n',
      's',
      'Vi\n',
      "S'a\\'b\\x41\\n'\n",
      's.',
    );
    const value = unpickle(bytes) as Map<PyValue, PyValue>;
    expect(value.get('a')).toBe(42);
    expect(value.get('b')).toBe(-0.25);
    expect(value.get('c')).toBe(123456789012345678901n);
    expect(value.get('d')).toBe(true);
    expect(value.get('e')).toBe(value);
    expect(value.get('f')).toEqual([1, 2]);
    expect([...(value.get('g') as PyValue[])]).toEqual([1]);
    expect(value.get('h')).toBe('café 😀');
    expect(value.get('i')).toBe("a'bA\n");
  });

  it('handles protocol-4 framing, MEMOIZE, sets and frozensets', () => {
    const body = pickle(']', [0x94], '(', [0x8f], [0x94], '(K', [1], 'K', [2], [0x90], '(K', [3], [0x91], 'h', [0], 'e.');
    const bytes = pickle([0x80, 4, 0x95], [body.length, 0, 0, 0, 0, 0, 0, 0], [...body]);
    const value = unpickle(bytes) as PyValue[];
    expect(value[0]).toEqual(new Set([1, 2]));
    expect(value[1]).toEqual(new Set([3]));
    expect(value[2]).toBe(value);
  });

  it('rebuilds an argparse.Namespace config through copyreg._reconstructor', () => {
    const bytes = pickle(
      [0x80, 2],
      'ccopyreg\n_reconstructor\n',
      'cargparse\nNamespace\n',
      'cbuiltins\nobject\n',
      'N',
      [0x87],
      'R',
      '}',
      'X',
      u32(2),
      'lr',
      'G',
      [0x3f, 0x50, 0x62, 0x4d, 0xd2, 0xf1, 0xa9, 0xfc],
      's',
      'b.',
    );
    const value = unpickle(bytes);
    expect(value).toBeInstanceOf(PyObject);
    expect((value as PyObject).className).toBe('argparse.Namespace');
    expect((value as PyObject).attributes.get('lr')).toBe(0.001);
  });

  it('refuses copyreg._reconstructor of a class outside the plain-data list', async () => {
    const bytes = pickle([0x80, 2], 'ccopyreg\n_reconstructor\n', 'ctorch\nSize\n', 'cbuiltins\nobject\n', 'N', [0x87], 'R.');
    await expectConvertError(() => unpickle(bytes), 'PICKLE_BAD_CALL', /plain-data/);
  });

  it('refuses malformed programs with typed errors', async () => {
    await expectConvertError(() => unpickle(pickle([0x80, 2], 'X', u32(100), 'abc')), 'PICKLE_TRUNCATED');
    await expectConvertError(() => unpickle(pickle([0x80, 2], 'N')), 'PICKLE_TRUNCATED');
    await expectConvertError(() => unpickle(pickle([0x80, 6], 'N.')), 'PICKLE_UNSUPPORTED_PROTOCOL');
    await expectConvertError(() => unpickle(pickle([0x80, 2], 'NN.')), 'PICKLE_STACK');
    await expectConvertError(() => unpickle(pickle([0x80, 2], 'a.')), 'PICKLE_STACK');
    await expectConvertError(() => unpickle(pickle([0x80, 2], 'e.')), 'PICKLE_STACK');
    await expectConvertError(() => unpickle(pickle([0x80, 2], 'h', [3], '.')), 'PICKLE_MEMO');
    await expectConvertError(() => unpickle(pickle([0x80, 2], 'K', [1], 'K', [2], 'a.')), 'PICKLE_STACK');
    await expectConvertError(() => unpickle(pickle([0x80, 2], [0x82, 1], '.')), 'PICKLE_UNSUPPORTED_OPCODE', /0x82/);
    await expectConvertError(() => unpickle(pickle([0x80, 2], 'N', 'Q.')), 'PICKLE_NO_PERSISTENT_LOAD');
    await expectConvertError(() => unpickle(pickle([0x80, 2], [0x8b], u32(1 << 20), '.')), 'PICKLE_UNSUPPORTED_OPCODE');
  });

  it('passes persistent ids to the loader it is given', () => {
    const seen: PyValue[] = [];
    const persistentLoad = (pid: PyValue): PyValue => {
      seen.push(pid);
      return 'loaded';
    };
    const value = unpickle(pickle([0x80, 2], 'X', u32(3), 'key', [0x85], 'Q.'), { persistentLoad });
    expect(value).toBe('loaded');
    expect([...(seen[0] as PyValue[])]).toEqual(['key']);
  });
});
