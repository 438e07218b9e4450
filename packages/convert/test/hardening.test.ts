// Hostile checkpoints, each with its expected outcome: crafted zips (CRC-32 and header lies, bombs,
// traversal names), weights that are NaN or Inf, safetensors offsets that are reversed or too large,
// the legacy torch format. Nothing may crash, every refusal is one line naming the file or entry and
// the bound, and a failed conversion leaves no output behind.
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { convertCheckpoint, openCheckpoint, readSafetensorsHeader, type ConvertError } from '../src/index.js';
import { ZIP_ENTRY_LIMIT_ENV } from '../src/readers/zip/zip-limits.js';
import { expectConvertError, fixturePath, hexOf, safetensorsBytes, tempDir, tempFile } from './fixtures.js';
import { REFERENCE } from '@jepa/testing';
import { tensorsOf, writeSafetensors } from './synthetic-checkpoint.js';
import { buildZip, storedEntries, type ZipSpec } from './zip-builder.js';

/** The one-line form the CLI prints: no newline inside the message. */
function expectOneLine(error: ConvertError): void {
  expect(error.message).not.toMatch(/\n/);
}

/** forged-ok.pt (archive/data.pkl, archive/data/0 holding the tensor 'w', archive/version) rebuilt, with `edit` applied to its specs. */
function forgedZip(edit: (specs: ZipSpec[]) => void = () => undefined, file = 'forged.pt'): string {
  const entries = storedEntries(fixturePath('torch', 'forged-ok.pt'));
  const specs: ZipSpec[] = [...entries].map(([name, data]) => ({ name, data }));
  edit(specs);
  return tempFile(file, buildZip(specs));
}

function spec(specs: ZipSpec[], name: string): ZipSpec {
  const found = specs.find((s) => s.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
}

/** Offset of the first data byte of entry `name` in a torch-written zip (local header found by name). */
function dataStartOf(bytes: Uint8Array, name: string): number {
  const needle = Buffer.from(name);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i + 30 + needle.length <= buffer.length; i++) {
    if (
      buffer.readUInt32LE(i) === 0x04034b50 &&
      buffer.readUInt16LE(i + 26) === needle.length &&
      buffer.subarray(i + 30, i + 30 + needle.length).equals(needle)
    ) {
      return i + 30 + needle.length + buffer.readUInt16LE(i + 28);
    }
  }
  throw new Error(`no local header for ${name}`);
}

afterEach(() => {
  delete process.env[ZIP_ENTRY_LIMIT_ENV];
});

describe('crafted zips', () => {
  it('the rebuilt control archive reads as the fixture does', async () => {
    const checkpoint = await openCheckpoint(forgedZip());
    expect(hexOf(await checkpoint.tensors.get('w')!.read())).toBe('00000000');
    await checkpoint.close();
  });

  it('refuses data.pkl whose bytes do not match its CRC-32, before unpickling it', async () => {
    const path = forgedZip((s) => {
      const pkl = spec(s, 'archive/data.pkl');
      pkl.crc = (pkl.crc ?? 0) ^ 1;
    });
    const error = await expectConvertError(
      openCheckpoint(path),
      'ZIP_CRC_MISMATCH',
      /forged\.pt: entry 'archive\/data\.pkl' has CRC-32 0x[0-9a-f]{8} but the central directory records/,
    );
    expectOneLine(error);
  });

  it('refuses a storage whose bytes were altered, when its tensor is read', async () => {
    const path = forgedZip((s) => {
      const storage = spec(s, 'archive/data/0');
      storage.crc = 0x12345678;
    });
    const checkpoint = await openCheckpoint(path);
    await expectConvertError(checkpoint.tensors.get('w')!.read(), 'ZIP_CRC_MISMATCH', /'archive\/data\/0'/);
    await checkpoint.close();
  });

  it('refuses a real torch.save checkpoint with one flipped weight byte, leaving no output', async () => {
    const bytes = new Uint8Array(readFileSync(join(REFERENCE, 'vjepa2_1', 'vjepa2_1_fixture.pt')));
    const checkpoint = await openCheckpoint(join(REFERENCE, 'vjepa2_1', 'vjepa2_1_fixture.pt'));
    const archive = checkpoint.metadata.archive;
    await checkpoint.close();
    bytes[dataStartOf(bytes, `${archive}/data/0`)] ^= 0x40;
    const out = tempDir();
    const error = await expectConvertError(
      convertCheckpoint(tempFile('flipped.pt', bytes), join(out, 'a.gguf'), { nHead: 1 }),
      'ZIP_CRC_MISMATCH',
      new RegExp(`flipped\\.pt: entry '${archive}/data/0' has CRC-32`),
    );
    expectOneLine(error);
    expect(readdirSync(out)).toEqual([]);
  });

  it('refuses a local header that names the entry differently from the central directory', async () => {
    const storage = forgedZip((s) => (spec(s, 'archive/data/0').localName = 'archive/data/9'));
    const checkpoint = await openCheckpoint(storage);
    await expectConvertError(
      checkpoint.tensors.get('w')!.read(),
      'ZIP_HEADER_MISMATCH',
      /entry 'archive\/data\/0' is named "archive\/data\/9" by its local header/,
    );
    await checkpoint.close();
    const pickle = forgedZip((s) => (spec(s, 'archive/data.pkl').localName = 'archive/other.pkl'));
    await expectConvertError(openCheckpoint(pickle), 'ZIP_HEADER_MISMATCH', /'archive\/data\.pkl' is named "archive\/other\.pkl"/);
  });

  it('refuses a local header whose size or method disagrees with the central directory', async () => {
    const size = forgedZip((s) => (spec(s, 'archive/data.pkl').localSize = 10));
    await expectConvertError(openCheckpoint(size), 'ZIP_HEADER_MISMATCH', /sizes \d+\/10 in its local header/);
    const method = forgedZip((s) => (spec(s, 'archive/data.pkl').localMethod = 8));
    await expectConvertError(openCheckpoint(method), 'ZIP_HEADER_MISMATCH', /compression method 8 in its local header but 0/);
  });

  it('refuses a deflate bomb by its declared size before inflating anything, naming the limit', async () => {
    process.env[ZIP_ENTRY_LIMIT_ENV] = '16';
    const path = forgedZip((s) => {
      const pkl = spec(s, 'archive/data.pkl');
      pkl.data = new Uint8Array(64 * 2 ** 20);
      pkl.deflate = true;
    }, 'bomb.pt');
    const out = tempDir();
    const error = await expectConvertError(
      convertCheckpoint(path, join(out, 'a.gguf')),
      'ZIP_ENTRY_TOO_LARGE',
      /bomb\.pt: entry 'archive\/data\.pkl' declares 64\.0 MiB uncompressed \(\d+\.\d KiB deflated\); the limit is JEPA_MAX_ZIP_ENTRY_MIB=16/,
    );
    expectOneLine(error);
    expect(readdirSync(out)).toEqual([]);
  });

  it('names the file and entry when the unpickler refuses what a zip entry holds', async () => {
    const path = forgedZip((s) => (spec(s, 'archive/data.pkl').data = new Uint8Array(64)), 'zeros.pt');
    const error = await expectConvertError(openCheckpoint(path), 'PICKLE_UNSUPPORTED_OPCODE', /^zeros\.pt: archive\/data\.pkl: opcode 0x00 at 0/);
    expectOneLine(error);
  });

  it('stops a bomb that lies about its size as soon as it inflates past the declared size', async () => {
    const path = forgedZip((s) => {
      const pkl = spec(s, 'archive/data.pkl');
      pkl.data = new Uint8Array(64 * 2 ** 20);
      pkl.deflate = true;
      pkl.declaredSize = 1000;
    }, 'liar.pt');
    const error = await expectConvertError(openCheckpoint(path), 'ZIP_INFLATE_FAILED', /liar\.pt: entry 'archive\/data\.pkl'.*1000/);
    expectOneLine(error);
  });

  it('inflates an honest deflated entry within the limit and checks its CRC-32', async () => {
    process.env[ZIP_ENTRY_LIMIT_ENV] = '1';
    const ok = forgedZip((s) => (spec(s, 'archive/data.pkl').deflate = true));
    const checkpoint = await openCheckpoint(ok);
    expect(hexOf(await checkpoint.tensors.get('w')!.read())).toBe('00000000');
    await checkpoint.close();
    const bad = forgedZip((s) => {
      const pkl = spec(s, 'archive/data.pkl');
      pkl.deflate = true;
      pkl.crc = 7;
    });
    await expectConvertError(openCheckpoint(bad), 'ZIP_CRC_MISMATCH');
  });

  it('refuses a limit that is not a positive number', async () => {
    process.env[ZIP_ENTRY_LIMIT_ENV] = 'lots';
    const path = forgedZip((s) => (spec(s, 'archive/data.pkl').deflate = true));
    await expectConvertError(openCheckpoint(path), 'CONVERT_BAD_OPTION', /JEPA_MAX_ZIP_ENTRY_MIB='lots'/);
  });

  it.each([
    ['a parent-directory name', '../data.pkl', /invalid relative path: \.\.\/data\.pkl/],
    ['a name that climbs out of the archive folder', 'archive/../../data.pkl', /invalid relative path/],
    ['an absolute name', '/archive/data.pkl', /absolute path: \/archive\/data\.pkl/],
    ['a backslash name', 'archive\\..\\data.pkl', /invalid characters/],
  ])('refuses %s', async (_, name, message) => {
    const path = forgedZip((s) => s.push({ name, data: new Uint8Array([1]) }));
    const error = await expectConvertError(openCheckpoint(path), 'ZIP_BAD_NAME', message);
    expect(error.message).toMatch(/^.*forged\.pt: central directory entry 3: /);
    expectOneLine(error);
  });

  it('refuses an entry that appears twice', async () => {
    const path = forgedZip((s) => s.push({ name: 'archive/data.pkl', data: new Uint8Array([0x80, 2, 0x4e, 0x2e]) }));
    await expectConvertError(openCheckpoint(path), 'ZIP_BAD_RECORD', /'archive\/data\.pkl' appears twice/);
  });
});

describe('non-finite weights', () => {
  async function hfvitWith(name: string, index: number, value: number): Promise<string> {
    const dir = join(tempDir(), 'hfvit');
    cpSync(join(REFERENCE, 'hfvit'), dir, { recursive: true });
    const tensors = await tensorsOf(join(dir, 'model.safetensors'));
    tensors.get(name)!.data[index] = value;
    writeSafetensors(join(dir, 'model.safetensors'), tensors);
    return dir;
  }

  it('refuses a NaN weight by tensor, leaving no output, and converts it with allowNonfinite', async () => {
    const dir = await hfvitWith('encoder.layer.0.attention.attention.query.weight', 5, Number.NaN);
    const out = join(tempDir(), 'a.gguf');
    const error = await expectConvertError(
      convertCheckpoint(dir, out),
      'CONVERT_NONFINITE',
      /tensor 'enc\.blk\.0\.attn\.qkv\.weight' \(from 'encoder\.layer\.0\.attention\.attention\.query\.weight'.*\) holds NaN \(first at element 5; the only non-finite value\);.*--allow-nonfinite/,
    );
    expectOneLine(error);
    expect(existsSync(out)).toBe(false);
    const s = await convertCheckpoint(dir, out, { allowNonfinite: true });
    expect(s.nonFinite).toEqual([{ tensor: 'enc.blk.0.attn.qkv.weight', count: 1 }]);
    expect(existsSync(out)).toBe(true);
  });

  it('refuses Inf in an f32 (non-matmul) tensor and in an f16 matmul weight', async () => {
    const norm = await hfvitWith('encoder.layer.1.norm1.weight', 0, Number.NEGATIVE_INFINITY);
    await expectConvertError(
      convertCheckpoint(norm, join(tempDir(), 'a.gguf')),
      'CONVERT_NONFINITE',
      /enc\.blk\.1\..* holds -Inf \(first at element 0;/,
    );
    const matmul = await hfvitWith('encoder.layer.1.mlp.fc1.weight', 7, Number.POSITIVE_INFINITY);
    await expectConvertError(
      convertCheckpoint(matmul, join(tempDir(), 'b.gguf'), { dtype: 'f16' }),
      'CONVERT_NONFINITE',
      / holds Inf \(first at element \d+;/,
    );
  });

  it('converts finite weights unchanged and reports nothing', async () => {
    const s = await convertCheckpoint(join(REFERENCE, 'hfvit'), join(tempDir(), 'a.gguf'), { dtype: 'f16' });
    expect(s.nonFinite).toEqual([]);
  });
});

describe('safetensors offsets and sizes', () => {
  const bad =
    (entry: unknown, data = new Uint8Array(8)) =>
    () =>
      readSafetensorsHeader(safetensorsBytes({ w: entry }, data), undefined, 'model.safetensors');

  it('calls reversed offsets reversed, not out of the data section', async () => {
    const error = await expectConvertError(
      bad({ dtype: 'F32', shape: [32], data_offsets: [200960, 200832] }),
      'SAFETENSORS_BAD_ENTRY',
      /data_offsets \[200960, 200832\] are reversed/,
    );
    expect(error.message).not.toMatch(/outside/);
  });

  it('calls offsets past what can be addressed too large', async () => {
    await expectConvertError(bad({ dtype: 'F32', shape: [2], data_offsets: [0, 1e20] }), 'SAFETENSORS_OFFSETS_OUT_OF_DATA', /exceed 2\^53 - 1/);
    await expectConvertError(
      bad({ dtype: 'F32', shape: [2], data_offsets: [0, 80] }),
      'SAFETENSORS_OFFSETS_OUT_OF_DATA',
      /end past the data section \(8 bytes\)/,
    );
  });

  it('calls a dimension too large to address too large, not a bad integer', async () => {
    const error = await expectConvertError(
      bad({ dtype: 'F32', shape: [2 ** 60, 2], data_offsets: [0, 8] }),
      'CONVERT_BAD_SHAPE',
      /exceeds 2\^53 - 1/,
    );
    expect(error.message).not.toMatch(/not a non-negative integer/);
    await expectConvertError(bad({ dtype: 'F32', shape: [2 ** 40, 2 ** 40], data_offsets: [0, 8] }), 'CONVERT_BAD_SHAPE', /too many elements/);
    await expectConvertError(bad({ dtype: 'F32', shape: [-1], data_offsets: [0, 8] }), 'CONVERT_BAD_SHAPE', /not a non-negative integer/);
  });
});

describe('legacy torch files', () => {
  it('refuses the pre-1.6 format as unreadable safely, without advising torch.load', async () => {
    const error = await expectConvertError(
      openCheckpoint(fixturePath('torch', 'legacy.pt')),
      'CONVERT_LEGACY_TORCH_FORMAT',
      /refused because it cannot be read safely/,
    );
    expect(error.message).not.toMatch(/re-save|torch\.load/);
    expectOneLine(error);
  });

  it('refuses a bare pickle stream by content, whatever the extension', async () => {
    const bytes = readFileSync(fixturePath('torch', 'legacy.pt'));
    const out = tempDir();
    await expectConvertError(
      convertCheckpoint(tempFile('weights.bin', bytes), join(out, 'a.gguf'), { family: 'vjepa2' }),
      'CONVERT_LEGACY_TORCH_FORMAT',
    );
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('a torch tensor size too large to address', () => {
  it('is called too large, naming the element, not "not a list of non-negative integers"', async () => {
    // forged-ok's pickle with its size tuple (1,) (BININT1 1, TUPLE1 at byte 112) made (2**63,) by LONG1.
    const huge = Buffer.alloc(9);
    huge.writeBigUInt64LE(2n ** 63n);
    const path = forgedZip((s) => {
      const pkl = spec(s, 'archive/data.pkl');
      const bytes = Buffer.from(pkl.data);
      expect([...bytes.subarray(112, 115)]).toEqual([0x4b, 1, 0x85]);
      pkl.data = Buffer.concat([bytes.subarray(0, 112), Buffer.from([0x8a, 9]), huge, Buffer.from([0x85]), bytes.subarray(115)]);
    });
    const error = await expectConvertError(
      openCheckpoint(path),
      'CONVERT_TENSOR_TOO_LARGE',
      /forged\.pt: archive\/data\.pkl: torch tensor: size \(9223372036854775808\) has element 0 = 9223372036854775808, past 2\^53 - 1/,
    );
    expect(error.message).not.toMatch(/not a/);
  });
});
