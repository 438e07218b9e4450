// torch.save writes each record with a data descriptor; records under 4 GiB get the 16-byte form
// (u32 sizes). Read as one u64, a record's two sizes exceed 2^53 from 2 MiB up, which once refused
// every real-size checkpoint ("64-bit field … is too large").
import { describe, expect, it } from 'vitest';
import { RandomAccessFile } from '../src/readers/random-access-file.js';
import { ZipArchive } from '../src/readers/zip/zip-archive.js';
import { tempFile } from './fixtures.js';
import { buildZip } from './zip-builder.js';

describe('data descriptors', () => {
  it('reads 2 MiB and larger stored records followed by a 16-byte descriptor', async () => {
    const big = Uint8Array.from({ length: 2_359_296 }, (_, i) => (i * 31) & 0xff);
    const small = Uint8Array.from([1, 2, 3, 4]);
    const path = tempFile(
      'descriptors.pt',
      buildZip([
        { name: 'archive/data/0', data: big, descriptor: true },
        { name: 'archive/data/1', data: small, descriptor: true },
      ]),
    );
    const file = await RandomAccessFile.open(path);
    try {
      const zip = await ZipArchive.open(file, 'descriptors.pt');
      expect(Buffer.from(await zip.read(zip.entries.get('archive/data/0')!)).equals(Buffer.from(big))).toBe(true);
      expect(Array.from(await zip.read(zip.entries.get('archive/data/1')!))).toEqual([1, 2, 3, 4]);
    } finally {
      await file.close();
    }
  });
});
