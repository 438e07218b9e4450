// The digest thread of a large download: the etag of what was handed over, and a bounded backlog
// (a CPU that hashes slower than the network brings must not hold the whole file in memory).
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKLOG_BYTES, ThreadDigest } from '../dist/thread-digest.js';

const dir = mkdtempSync(join(tmpdir(), 'jepa-thread-digest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MIB = 1 << 20;
const size = BACKLOG_BYTES + 8 * MIB;
const bytes = randomBytes(size);
const path = join(dir, 'blob.incomplete');
writeFileSync(path, bytes);
const file = { path: 'model.safetensors', size, etag: createHash('sha256').update(bytes).digest('hex'), lfs: true };

/** Hands `bytes` over in 1 MiB blocks the way the block writer does; the largest backlog seen, how many blocks waited, the blocks given back. */
async function handOver(digest: ThreadDigest, from: Buffer): Promise<{ largest: number; waited: number; returned: Buffer[] }> {
  let largest = 0;
  let waited = 0;
  const returned: Buffer[] = [];
  for (let at = 0; at < from.length; at += MIB) {
    // a copy, as the thread borrows the block's memory
    const block = Buffer.from(from.subarray(at, at + MIB));
    const wait = digest.written(block, block.length, (back) => returned.push(back));
    largest = Math.max(largest, digest.backlog);
    if (wait) {
      waited++;
      await wait;
    }
  }
  return { largest, waited, returned };
}

describe('the digest thread', () => {
  it("hashes the blocks handed over to the file's sha256, holding back the writer once it is BACKLOG_BYTES behind", async () => {
    const digest = new ThreadDigest(file, path);
    try {
      const { largest, waited, returned } = await handOver(digest, bytes);
      // nothing yields to the thread's answers until a block waits, so the backlog does reach the bound
      expect(waited).toBeGreaterThan(0);
      expect(largest).toBeGreaterThan(BACKLOG_BYTES);
      expect(largest).toBeLessThanOrEqual(BACKLOG_BYTES + MIB);
      expect(await digest.hex(size)).toBe(file.etag);
      // every block comes back to be filled again, in the order handed over, its memory intact
      expect(returned.length).toBe(size / MIB);
      expect(returned[0].equals(bytes.subarray(0, MIB))).toBe(true);
      expect(returned[returned.length - 1].equals(bytes.subarray(size - MIB))).toBe(true);
    } finally {
      await digest.close();
    }
  });

  it('gives another digest for other bytes (negative control), and reads back a prefix already on disk', async () => {
    const changed = Buffer.from(bytes);
    changed[size >> 1] ^= 1;
    const wrong = new ThreadDigest(file, path);
    try {
      await handOver(wrong, changed);
      expect(await wrong.hex(size)).not.toBe(file.etag);
    } finally {
      await wrong.close();
    }
    const resumed = new ThreadDigest(file, path);
    try {
      await resumed.catchUp(3 * MIB);
      await handOver(resumed, bytes.subarray(3 * MIB));
      expect(await resumed.hex(size)).toBe(file.etag);
    } finally {
      await resumed.close();
    }
  });
});
