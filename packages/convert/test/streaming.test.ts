import { afterEach, describe, expect, it, vi } from 'vitest';
import { openCheckpoint, streamTensors } from '../src/index.js';
import { RandomAccessFile } from '../src/readers/random-access-file.js';
import { fixturePath, hexOf, manifest } from './fixtures.js';

function spyReads(): { position: number; length: number }[] {
  const reads: { position: number; length: number }[] = [];
  const original = RandomAccessFile.prototype.read;
  vi.spyOn(RandomAccessFile.prototype, 'read').mockImplementation(function (this: RandomAccessFile, position: number, length: number) {
    reads.push({ position, length });
    return original.call(this, position, length);
  });
  return reads;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('positioned reads', () => {
  it('a safetensors tensor read touches exactly its own bytes', async () => {
    const checkpoint = await openCheckpoint(fixturePath('safetensors', 'model.safetensors'));
    const reads = spyReads();
    const ref = checkpoint.tensors.get('embeddings.position_embeddings')!;
    await ref.read();
    expect(reads).toEqual([{ position: (ref.location as { byteOffset: number }).byteOffset, length: ref.byteLength }]);
    await checkpoint.close();
  });

  // The first read of a storage checks its records once: the local header (30 bytes, then its name
  // and extra field), the data descriptor torch writes after the data (24 bytes), and the CRC-32 of the
  // whole storage record (here a 10-element storage, 40 bytes, that several tensors view).
  const checks = (nameAndExtra: number) => [30, nameAndExtra, 24, 10 * 4];

  it('a torch tensor over part of a storage checks the storage once, then reads only its own bytes', async () => {
    const checkpoint = await openCheckpoint(fixturePath('torch', 'nested.pt'));
    const reads = spyReads();
    const ref = checkpoint.tensors.get('encoder.module.blocks.0.norm1.weight')!;
    await ref.read();
    await ref.read();
    expect(reads.map((r) => r.length)).toEqual([...checks(reads[1]!.length), ref.byteLength, ref.byteLength]);
    await checkpoint.close();
  });

  it('a strided view reads the span it covers, not its whole storage', async () => {
    const checkpoint = await openCheckpoint(fixturePath('torch', 'nested.pt'));
    const reads = spyReads();
    // shared[3:10:2] of a 10-element storage: elements 3..9, i.e. 7 elements read for 4 kept.
    const ref = checkpoint.tensors.get('encoder.module.blocks.0.norm1.bias')!;
    expect(ref.location).toMatchObject({ elementOffset: 3, strides: [2] });
    await ref.read();
    await ref.read();
    expect(reads.map((r) => r.length)).toEqual([...checks(reads[1]!.length), 7 * 4, 7 * 4]);
    await checkpoint.close();
  });

  it('a tensor that is its whole storage is CRC-checked on the bytes it reads, with no second pass', async () => {
    const checkpoint = await openCheckpoint(fixturePath('torch', 'nested.pt'));
    const reads = spyReads();
    const ref = checkpoint.tensors.get('encoder.module.patch_embed.proj.weight')!;
    await ref.read();
    await ref.read();
    expect(reads.map((r) => r.length)).toEqual([30, reads[1]!.length, 24, ref.byteLength, ref.byteLength]);
    await checkpoint.close();
  });
});

describe('streamTensors', () => {
  it('yields every tensor once, in table order, with its data', async () => {
    const checkpoint = await openCheckpoint(fixturePath('safetensors', 'sharded'));
    const names: string[] = [];
    for await (const { ref, data } of streamTensors(checkpoint.tensors)) {
      names.push(ref.name);
      expect(hexOf(data), ref.name).toBe(manifest.safetensors.sharded[ref.name].hex);
    }
    expect(names).toEqual([...checkpoint.tensors.keys()]);
    await checkpoint.close();
  });
});
