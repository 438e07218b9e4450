// The store thread of a large download: the file and the etag of what was handed over, a bounded
// backlog (a disk or a CPU slower than the network must not hold the whole file in memory), the blocks
// given back, and a full disk refused in words.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../dist/blob-store.js';
import { InlineStore } from '../dist/inline-store.js';
import { BACKLOG_BYTES, ThreadStore } from '../dist/thread-store.js';

const dir = mkdtempSync(join(tmpdir(), 'jepa-thread-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MIB = 1 << 20;
const size = BACKLOG_BYTES + 8 * MIB;
const bytes = randomBytes(size);
const path = join(dir, 'blob.incomplete');
const file = { path: 'model.safetensors', size, etag: createHash('sha256').update(bytes).digest('hex'), lfs: true };

/** Hands `from` over in 1 MiB blocks the way the block filler does; the largest backlog seen, how many blocks waited, the blocks given back. */
async function handOver(store: ThreadStore, from: Buffer): Promise<{ largest: number; waited: number; returned: Buffer[] }> {
  let largest = 0;
  let waited = 0;
  const returned: Buffer[] = [];
  for (let at = 0; at < from.length; at += MIB) {
    // a copy, as the thread borrows the block's memory
    const block = Buffer.from(from.subarray(at, at + MIB));
    const wait = store.append(block, block.length, (back) => returned.push(back));
    largest = Math.max(largest, store.backlog);
    if (wait) {
      waited++;
      await wait;
    }
  }
  return { largest, waited, returned };
}

describe('the store thread', () => {
  it("writes the blocks handed over and hashes them to the file's sha256, holding back the sender once it is BACKLOG_BYTES behind", async () => {
    const store = new ThreadStore(file, path);
    try {
      await store.begin(0);
      const { largest, waited, returned } = await handOver(store, bytes);
      // nothing yields to the thread's answers until a block waits, so the backlog does reach the bound
      expect(waited).toBeGreaterThan(0);
      expect(largest).toBeGreaterThan(BACKLOG_BYTES);
      expect(largest).toBeLessThanOrEqual(BACKLOG_BYTES + MIB);
      expect(await store.end()).toBe(size);
      expect(await store.hex(size)).toBe(file.etag);
      expect(readFileSync(path).equals(bytes)).toBe(true);
      // every block comes back to be filled again, in the order handed over, its memory intact
      expect(returned.length).toBe(size / MIB);
      expect(returned[0].equals(bytes.subarray(0, MIB))).toBe(true);
      expect(returned[returned.length - 1].equals(bytes.subarray(size - MIB))).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('gives another digest for other bytes (negative control), and appends after a prefix already on disk', async () => {
    const changed = Buffer.from(bytes);
    changed[size >> 1] ^= 1;
    const wrong = new ThreadStore(file, path);
    try {
      await wrong.begin(0);
      await handOver(wrong, changed);
      await wrong.end();
      expect(await wrong.hex(size)).not.toBe(file.etag);
    } finally {
      await wrong.close();
    }
    writeFileSync(path, bytes.subarray(0, 3 * MIB));
    const resumed = new ThreadStore(file, path);
    try {
      await resumed.begin(3 * MIB);
      await handOver(resumed, bytes.subarray(3 * MIB));
      expect(await resumed.end()).toBe(size - 3 * MIB);
      expect(await resumed.hex(size)).toBe(file.etag);
      expect(readFileSync(path).equals(bytes)).toBe(true);
    } finally {
      await resumed.close();
    }
  });

  // /dev/full takes nothing: every write fails with ENOSPC
  for (const [kind, open] of [
    ['thread', () => new ThreadStore(file, '/dev/full')],
    ['inline', () => new InlineStore(file, '/dev/full')],
  ] as const) {
    it(`refuses a full disk in words, on the ${kind} store, and stops taking blocks`, async () => {
      const store: BlobStore = open();
      try {
        await store.begin(0);
        let refusal: unknown;
        for (let at = 0; at < 8 * MIB && refusal === undefined; at += MIB) {
          const block = Buffer.from(bytes.subarray(at, at + MIB));
          refusal = await Promise.resolve(store.append(block, MIB, () => {})).then(
            () => undefined,
            (err: unknown) => err,
          );
          // time for the thread's answer to come back
          await sleep(20);
        }
        const ended = await store.end().catch((err: unknown) => err);
        for (const err of [refusal, ended]) {
          expect(err).toMatchObject({ code: 'HUB_IO' });
          expect((err as Error).message).toMatch(/^\/dev\/full: the disk is full/);
        }
      } finally {
        await store.close();
      }
    });
  }
});
