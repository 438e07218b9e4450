// Caches jepa did not write: one laid out by hand as Python's huggingface_hub writes it, and one
// written by @huggingface/hub's own snapshotDownload. Both are read, offline and online.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { snapshotDownload } from '@huggingface/hub';
import { convertCheckpoint } from '@jepa/convert';
import { pullModel, parseHubReference, resolveModel } from '@jepa/hub';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DINOV3, type HubFixture, repoFiles, startHub } from './hub-fixture.js';

let hub: HubFixture;
beforeEach(async () => {
  hub = await startHub();
});
afterEach(async () => {
  await hub.close();
});

async function convertedLocally(folder: string): Promise<Buffer> {
  const out = join(mkdtempSync(join(tmpdir(), 'jepa-local-')), 'local.gguf');
  await convertCheckpoint(join(folder, 'model.safetensors'), out);
  return readFileSync(out);
}

/** What huggingface_hub's hf_hub_download leaves: blobs by etag, relative links, refs/main without a newline, an empty lock file. */
function layOutAsPython(cacheDir: string, repo: string, commit: string, files: Record<string, Buffer>): void {
  const folder = join(cacheDir, `models--${repo.replace('/', '--')}`);
  mkdirSync(join(folder, 'blobs'), { recursive: true });
  mkdirSync(join(folder, 'refs'), { recursive: true });
  mkdirSync(join(folder, 'snapshots', commit), { recursive: true });
  const locks = join(cacheDir, '.locks', `models--${repo.replace('/', '--')}`);
  mkdirSync(locks, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) {
    const etag = name.endsWith('.safetensors')
      ? createHash('sha256').update(bytes).digest('hex')
      : createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
    writeFileSync(join(folder, 'blobs', etag), bytes);
    symlinkSync(`../../blobs/${etag}`, join(folder, 'snapshots', commit, name));
    // filelock leaves its lock files behind, empty
    writeFileSync(join(locks, `${etag}.lock`), '');
    utimesSync(join(locks, `${etag}.lock`), new Date(2025, 0, 1), new Date(2025, 0, 1));
  }
  writeFileSync(join(folder, 'refs', 'main'), commit);
}

describe('caches written by others', () => {
  it("reads a cache laid out by hand the way Python's huggingface_hub writes it, offline and online", async () => {
    const commit = hub.server.seed('tiny/byhand', repoFiles(DINOV3));
    const files = Object.fromEntries(['config.json', 'preprocessor_config.json', 'model.safetensors'].map((n) => [n, readFileSync(join(DINOV3, n))]));
    layOutAsPython(hub.settings.cacheDir, 'tiny/byhand', commit, files);

    const offline = await resolveModel('hf:tiny/byhand', { settings: { ...hub.settings, offline: true } });
    expect(readFileSync(offline)).toEqual(await convertedLocally(DINOV3));
    expect(hub.server.requests).toEqual([]);

    // online, the blobs are there: nothing is downloaded, and the converted file is the same
    const online = await pullModel(parseHubReference('hf:tiny/byhand:f16'), { settings: hub.settings });
    expect(online.commit).toBe(commit);
    expect(hub.server.requests.filter((r) => r.path.includes('/resolve/') || r.path.startsWith('/lfs/'))).toEqual([]);
  });

  it("reads a cache written by @huggingface/hub's snapshotDownload", async () => {
    const folder = await snapshotDownload({ repo: 'tiny/hfvit', hubUrl: hub.server.url, cacheDir: hub.settings.cacheDir });
    const commit = hub.server.repos.get('tiny/hfvit')?.branches.get('main') ?? '';
    expect(folder).toBe(join(hub.settings.cacheDir, 'models--tiny--hfvit', 'snapshots', commit));
    const before = hub.server.requests.length;
    const gguf = await resolveModel('hf:tiny/hfvit', { settings: { ...hub.settings, offline: true } });
    expect(hub.server.requests.length).toBe(before);
    expect(readFileSync(gguf)).toEqual(await convertedLocally(join(hub.settings.cacheDir, 'models--tiny--hfvit', 'snapshots', commit)));
  });
});
