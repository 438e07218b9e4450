import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openCheckpoint } from '../src/index.js';
import { expectConvertError, fixturePath, hexOf, tempFile } from './fixtures.js';

function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(fixturePath('torch', name)));
}

/** Offset of the local header of the zip entry `name` (found by its signature and name). */
function localHeaderOf(bytes: Uint8Array, name: string): number {
  const needle = Buffer.from(name);
  for (let i = 0; i + 30 + needle.length <= bytes.length; i++) {
    if (
      bytes[i] === 0x50 &&
      bytes[i + 1] === 0x4b &&
      bytes[i + 2] === 3 &&
      bytes[i + 3] === 4 &&
      Buffer.from(bytes.subarray(i + 30, i + 30 + needle.length)).equals(needle)
    ) {
      const nameLength = bytes[i + 26] | (bytes[i + 27] << 8);
      if (nameLength === needle.length) return i;
    }
  }
  throw new Error(`no local header for ${name}`);
}

describe('torch checkpoints that must be refused', () => {
  it('refuses a checkpoint whose storage record is missing, naming the storage', async () => {
    await expectConvertError(openCheckpoint(fixturePath('torch', 'missing-storage.pt')), 'TORCH_MISSING_STORAGE', /storage 1 .*data\/1/);
  });

  it('refuses the pre-1.6 (non-zip) torch.save format', async () => {
    await expectConvertError(openCheckpoint(fixturePath('torch', 'legacy.pt')), 'CONVERT_LEGACY_TORCH_FORMAT');
  });

  it('reads a forged tensor that torch itself accepts (the control for the two refusals below)', async () => {
    const checkpoint = await openCheckpoint(fixturePath('torch', 'forged-ok.pt'));
    const ref = checkpoint.tensors.get('w')!;
    expect(ref.location).toMatchObject({ kind: 'torch', storageKey: '0', elementOffset: 1 });
    expect(hexOf(await ref.read())).toBe('00000000');
    await checkpoint.close();
  });

  it('refuses a tensor view that reaches past its storage', async () => {
    await expectConvertError(
      openCheckpoint(fixturePath('torch', 'tensor-out-of-storage.pt')),
      'TORCH_TENSOR_OUT_OF_STORAGE',
      /element 3 of storage 0, which has 2/,
    );
  });

  it('refuses a storage whose record size disagrees with its element count', async () => {
    await expectConvertError(openCheckpoint(fixturePath('torch', 'storage-size-mismatch.pt')), 'TORCH_STORAGE_SIZE', /5 x f32 = 20 bytes .* 8/);
  });

  it('refuses a file that is neither zip nor safetensors', async () => {
    await expectConvertError(openCheckpoint(tempFile('junk.pt', new TextEncoder().encode('hello, not a checkpoint'))), 'CONVERT_UNKNOWN_FORMAT');
    await expectConvertError(openCheckpoint(tempFile('empty.bin', new Uint8Array(0))), 'CONVERT_UNKNOWN_FORMAT');
    await expectConvertError(openCheckpoint('/nonexistent/model.pt'), 'CONVERT_IO');
  });
});

describe('damaged zip containers', () => {
  it('refuses a zip cut short (no end record)', async () => {
    const bytes = fixtureBytes('nested.pt');
    await expectConvertError(openCheckpoint(tempFile('cut.pt', bytes.subarray(0, bytes.length >> 1))), 'ZIP_NO_END_RECORD');
  });

  it('refuses a central directory entry with a broken signature', async () => {
    const bytes = fixtureBytes('nested.pt');
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    const end = bytes.length - 22;
    expect(view.getUint32(end, true)).toBe(0x06054b50);
    bytes[view.getUint32(end + 16, true)] = 0;
    await expectConvertError(openCheckpoint(tempFile('bad-cd.pt', bytes)), 'ZIP_BAD_RECORD', /entry 0/);
  });

  it('refuses a central directory that runs past the file', async () => {
    const bytes = fixtureBytes('nested.pt');
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    // torch always writes the ZIP64 end record, whose values take precedence.
    const locator = bytes.length - 22 - 20;
    expect(view.getUint32(locator, true)).toBe(0x07064b50);
    const zip64End = Number(view.getBigUint64(locator + 8, true));
    view.setBigUint64(zip64End + 40, 0x7fffffffn, true);
    await expectConvertError(openCheckpoint(tempFile('bad-size.pt', bytes)), 'ZIP_BAD_RECORD', /runs past the file/);
  });

  it('refuses to read a storage whose local header is damaged, when that tensor is read', async () => {
    const bytes = fixtureBytes('nested.pt');
    bytes[localHeaderOf(bytes, 'nested/data/0')] = 0;
    const checkpoint = await openCheckpoint(tempFile('bad-local.pt', bytes));
    await expectConvertError(checkpoint.tensors.get('encoder.module.patch_embed.proj.weight')!.read(), 'ZIP_BAD_RECORD', /nested\/data\/0/);
    await checkpoint.close();
  });

  it('refuses a deflated storage that does not inflate', async () => {
    const bytes = fixtureBytes('deflated.pt');
    const header = localHeaderOf(bytes, 'nested/data/0');
    const dataStart = header + 30 + (bytes[header + 26] | (bytes[header + 27] << 8)) + (bytes[header + 28] | (bytes[header + 29] << 8));
    bytes[dataStart] = 0xff; // deflate block type 3 does not exist
    const checkpoint = await openCheckpoint(tempFile('bad-deflate.pt', bytes));
    await expectConvertError(checkpoint.tensors.get('encoder.module.patch_embed.proj.weight')!.read(), 'ZIP_INFLATE_FAILED');
    await checkpoint.close();
  });
});
