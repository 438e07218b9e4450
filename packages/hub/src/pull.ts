// A revision of a repository into the Hugging Face cache, only the files conversion needs: from the
// Hub, or (HF_HUB_OFFLINE=1, or a commit already there) from the cache alone.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type ByteProgress, downloadBlob } from './blob-download.js';
import type { HubSettings } from './environment.js';
import { HubError } from './errors.js';
import { HubClient } from './hub-client.js';
import { hubFailure } from './hub-failure.js';
import { formatReference, type HubReference } from './reference.js';
import { RepoCache } from './repo-cache.js';
import type { RetryPolicy } from './retry.js';
import { selectFiles } from './select-files.js';

export interface PullOptions {
  settings: HubSettings;
  onBytes?: (p: ByteProgress) => void;
  onNote?: (message: string) => void;
}

export interface Snapshot {
  ref: HubReference;
  commit: string;
  /** snapshots/<commit> in the Hugging Face cache. */
  folder: string;
  /** The file the converter opens, in that folder. */
  checkpoint: string;
  /** The repository's paths of the files pulled (or found). */
  files: string[];
}

const label = (ref: HubReference) => formatReference({ ...ref, type: 'f32' });

/** The snapshot the cache already holds for `ref` (complete: every chosen file's blob there), else undefined. */
export async function cachedSnapshot(ref: HubReference, settings: HubSettings): Promise<Snapshot | undefined> {
  const cache = new RepoCache(settings.cacheDir, ref.repo);
  const commit = await cache.commitOf(ref.revision);
  if (commit === undefined) return undefined;
  const folder = cache.snapshotFolder(commit);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return undefined;
  }
  let chosen: { files: { path: string }[]; checkpoint: string };
  try {
    chosen = selectFiles(
      names.map((path) => ({ path })),
      label(ref),
    );
  } catch {
    return undefined;
  }
  for (const f of chosen.files) {
    try {
      await stat(join(folder, f.path));
    } catch {
      return undefined;
    }
  }
  return { ref, commit, folder, checkpoint: join(folder, chosen.checkpoint), files: chosen.files.map((f) => f.path) };
}

/** With HF_HUB_OFFLINE=1: the cache's snapshot, or a one-line refusal. */
export async function offlineSnapshot(ref: HubReference, settings: HubSettings): Promise<Snapshot> {
  const found = await cachedSnapshot(ref, settings);
  if (found) return found;
  throw new HubError('HUB_OFFLINE_MISSING', `HF_HUB_OFFLINE=1 and the cache (${settings.cacheDir}) does not hold ${label(ref)}: pull it once online`);
}

export function retryPolicy(settings: HubSettings, onNote?: (message: string) => void): RetryPolicy {
  return {
    attempts: settings.attempts,
    retryDelayMs: settings.retryDelayMs,
    ...(onNote ? { onRetry: (attempt, reason) => onNote(`${settings.endpoint}: ${reason} (try ${attempt}); trying again`) } : {}),
  };
}

/** The commit `ref.revision` names on the Hub (a commit is its own, with no request). */
export async function resolveCommit(
  ref: HubReference,
  options: PullOptions,
  client = new HubClient(options.settings, retryPolicy(options.settings, options.onNote)),
): Promise<string> {
  if (/^[0-9a-f]{40}$/.test(ref.revision)) return ref.revision;
  return await failing(ref, options.settings, client, () => client.commitOf(ref.repo, ref.revision));
}

async function failing<T>(ref: HubReference, settings: HubSettings, client: HubClient, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw hubFailure(err, {
      ref,
      endpoint: settings.endpoint,
      hasToken: settings.token !== undefined,
      errorCode: client.hubFetch.lastErrorCode,
      cached: (await cachedSnapshot(ref, settings)) !== undefined,
      attempts: settings.attempts,
    });
  }
}

/** Downloads what is missing of `ref` at `commit` (one file at a time), links the snapshot and writes refs/<revision>. */
export async function pullSnapshot(ref: HubReference, options: PullOptions, knownCommit?: string): Promise<Snapshot> {
  const { settings } = options;
  if (settings.offline) return offlineSnapshot(ref, settings);
  const policy = retryPolicy(settings, options.onNote);
  const client = new HubClient(settings, policy);
  const cache = new RepoCache(settings.cacheDir, ref.repo);
  const commit = knownCommit ?? (await resolveCommit(ref, options, client));
  return await failing(ref, settings, client, async () => {
    const chosen = selectFiles(await client.filesOf(ref.repo, commit), label(ref));
    const target = {
      endpoint: settings.endpoint,
      ...(settings.token ? { token: settings.token } : {}),
      repo: ref.repo,
      commit,
      cache,
      policy,
      ...(options.onBytes ? { onBytes: options.onBytes } : {}),
      ...(options.onNote ? { onNote: options.onNote } : {}),
    };
    for (const file of chosen.files) {
      await downloadBlob(target, file);
      await cache.link(commit, file.path, file.etag);
    }
    await cache.writeRef(ref.revision, commit);
    return {
      ref,
      commit,
      folder: cache.snapshotFolder(commit),
      checkpoint: cache.snapshotPath(commit, chosen.checkpoint),
      files: chosen.files.map((f) => f.path),
    };
  });
}
