// `jepa models rm hf:ORG/NAME[@REVISION]`: a repository, or one revision of it, out of both caches.
// A revision's blobs go only where no other snapshot links to them.
import { readdir, readFile, readlink, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { getRepoFolderName } from '@huggingface/hub';
import { convertedRoot } from './converted.js';
import type { HubSettings } from './environment.js';
import { HubError } from './errors.js';
import { HUB_PREFIX, parseHubReference } from './reference.js';
import { exists, RepoCache } from './repo-cache.js';

async function linkedBlobs(snapshot: string, out: Set<string>): Promise<void> {
  for (const entry of await readdir(snapshot, { withFileTypes: true })) {
    const path = join(snapshot, entry.name);
    if (entry.isDirectory()) await linkedBlobs(path, out);
    else if (entry.isSymbolicLink()) out.add(basename(await readlink(path)));
  }
}

/** The paths removed; a reference the caches do not hold is refused in one line. */
export async function removeCached(model: string, settings: HubSettings): Promise<string[]> {
  const ref = parseHubReference(model.startsWith(HUB_PREFIX) ? model : `${HUB_PREFIX}${model}`);
  const whole = !model.includes('@');
  const cache = new RepoCache(settings.cacheDir, ref.repo);
  const converted = join(convertedRoot(settings.jepaCache), getRepoFolderName({ type: 'model', name: ref.repo }));
  const removed: string[] = [];
  const remove = async (path: string) => {
    if (!(await exists(path))) return;
    await rm(path, { recursive: true, force: true });
    removed.push(path);
  };
  if (whole) {
    for (const path of [cache.folder, cache.lockFolder, converted]) await remove(path);
  } else {
    const commit = await cache.commitOf(ref.revision);
    if (commit !== undefined) {
      const snapshot = cache.snapshotFolder(commit);
      const mine = new Set<string>();
      if (await exists(snapshot)) await linkedBlobs(snapshot, mine);
      const others = new Set<string>();
      for (const other of await readdir(join(cache.folder, 'snapshots')).catch(() => []))
        if (other !== commit) await linkedBlobs(join(cache.folder, 'snapshots', other), others);
      await remove(snapshot);
      for (const blob of mine) if (!others.has(blob)) await remove(cache.blobPath(blob));
      for (const name of await readdir(join(cache.folder, 'refs')).catch(() => [])) {
        const path = join(cache.folder, 'refs', name);
        if ((await readFile(path, 'utf8').catch(() => '')).trim() === commit) await remove(path);
      }
      await remove(join(converted, commit));
    }
  }
  if (removed.length === 0)
    throw new HubError('HUB_NOT_CACHED', `${model}: not in the caches (${settings.cacheDir}, ${convertedRoot(settings.jepaCache)})`);
  return removed;
}
