// One file of a repository into blobs/<etag>: fetched to <etag>.incomplete under a lock per blob,
// resumed with Range from the size already there after a cut, a reset or a kill, checked against
// its etag (the LFS sha256, or the git blob id of a small file) as it is written, then renamed into place.
import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BlockFiller } from './block-filler.js';
import type { BlobStore } from './blob-store.js';
import { type BlobResponse, getBlob } from './blob-request.js';
import type { RemoteFile } from './remote-file.js';
import { lockBlob } from './blob-lock.js';
import { HubError } from './errors.js';
import { HttpRefusal } from './hub-failure.js';
import { InlineStore } from './inline-store.js';
import { exists, type RepoCache } from './repo-cache.js';
import { backoff, isTransientStatus, type RetryPolicy, TransientStatus, transientCause } from './retry.js';
import { ThreadStore } from './thread-store.js';

export interface ByteProgress {
  file: string;
  done: number;
  total: number;
}

export interface DownloadTarget {
  endpoint: string;
  token?: string;
  repo: string;
  commit: string;
  cache: RepoCache;
  policy: RetryPolicy;
  onBytes?: (p: ByteProgress) => void;
  /** One line for the user: waiting on another pull, resuming, retrying. */
  onNote?: (message: string) => void;
}

const BLOCK_BYTES = 1 << 20;
/** Below this size a file is written and hashed on this thread: starting one (about 35 ms) would cost more than it saves. */
const THREAD_STORE_BYTES = 256 * 1024;

/** The body ended before its length: a cut connection, retried like a reset. */
class ShortBody extends Error {
  readonly code = 'ESHORTBODY';
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

const unquote = (etag: string | undefined) => etag?.replace(/^W\//, '').replace(/"/g, '');

function resolveUrl(t: DownloadTarget, file: string): string {
  const path = file.split('/').map(encodeURIComponent).join('/');
  return `${t.endpoint}/${t.repo}/resolve/${t.commit}/${path}`;
}

/** Redirects followed at most: a renamed repository's 307, then the 302 to the LFS object, with room to spare. */
const MAX_REDIRECTS = 5;

/** The response with the file's bytes from `from` on: the resolve URL, or where its redirects lead. */
async function request(t: DownloadTarget, file: RemoteFile, from: number): Promise<BlobResponse> {
  const url = resolveUrl(t, file.path);
  const hubOrigin = new URL(url).origin;
  const range: Record<string, string> = from > 0 ? { Range: `bytes=${from}-` } : {};
  const auth: Record<string, string> = t.token ? { Authorization: `Bearer ${t.token}` } : {};
  let at = new URL(url);
  for (let hop = 0; ; hop++) {
    // a signed CDN address is not given the token (huggingface_hub does the same)
    const response = await getBlob(at, { ...(at.origin === hubOrigin ? auth : {}), ...range });
    if (response.status >= 200 && response.status < 300) return response;
    const location = response.header('location');
    if (response.status >= 300 && response.status < 400 && location !== undefined && hop < MAX_REDIRECTS) {
      const linked = unquote(response.header('x-linked-etag'));
      await response.discard();
      if (linked && linked !== file.etag)
        throw new HubError('HUB_CHECKSUM', `${t.repo}/${file.path}: the Hub links it to ${linked}, its listing to ${file.etag}`);
      at = new URL(location, at);
      continue;
    }
    await response.discard();
    if (isTransientStatus(response.status)) throw new TransientStatus(response.status);
    // without the query, which signs a CDN address
    throw new HttpRefusal(response.status, response.header('x-error-code'), `${at.origin}${at.pathname}`);
  }
}

/** Appends the rest of the file to `incomplete`; a server that ignores Range starts it over. */
async function fetchRest(t: DownloadTarget, file: RemoteFile, incomplete: string, store: BlobStore): Promise<void> {
  let from = await sizeOf(incomplete);
  if (from > file.size) {
    await unlink(incomplete);
    from = 0;
  }
  if (from === file.size) return;
  const response = await request(t, file, from);
  if (from > 0 && response.status !== 206) from = 0;
  await store.begin(from).catch((err: unknown) => {
    response.cancel();
    throw err;
  });
  const filler = new BlockFiller(store, BLOCK_BYTES);
  let received = from;
  let appended = 0;
  try {
    await response.pipeTo((chunk) => {
      received += chunk.length;
      t.onBytes?.({ file: file.path, done: received, total: file.size });
      return filler.push(chunk);
    });
  } finally {
    // what came before a cut is written too, so the next try resumes after it; a failed write wins over a cut
    appended = await filler.end();
  }
  if (from + appended < file.size) throw new ShortBody(`${file.path}: ${from + appended} of ${file.size} bytes`);
}

/** Retries transient failures; a try that moved the file on does not count against the limit. */
async function fetchWithRetries(t: DownloadTarget, file: RemoteFile, incomplete: string, store: BlobStore): Promise<void> {
  let failures = 0;
  for (;;) {
    const before = await sizeOf(incomplete);
    try {
      await fetchRest(t, file, incomplete, store);
      return;
    } catch (err) {
      const reason = transientCause(err);
      if (reason === undefined) throw err;
      const after = await sizeOf(incomplete);
      failures = after > before ? 1 : failures + 1;
      if (failures >= t.policy.attempts) throw err;
      t.onNote?.(`${file.path}: ${reason} at ${after} of ${file.size} bytes; trying again`);
      await backoff(t.policy, failures, err);
    }
  }
}

/** blobs/<etag> for `file`, downloaded unless it is there; a second wrong digest is refused. */
export async function downloadBlob(t: DownloadTarget, file: RemoteFile): Promise<string> {
  const blob = t.cache.blobPath(file.etag);
  if (await exists(blob)) return blob;
  await mkdir(dirname(blob), { recursive: true });
  const lock = await lockBlob(t.cache.lockPath(file.etag), () => t.onNote?.(`${file.path}: waiting for another pull of it`));
  try {
    if (await exists(blob)) return blob;
    const incomplete = `${blob}.incomplete`;
    const resumed = await sizeOf(incomplete);
    if (resumed > 0 && resumed < file.size) t.onNote?.(`${file.path}: resuming at ${resumed} of ${file.size} bytes`);
    for (let check = 1; ; check++) {
      const store = file.size < THREAD_STORE_BYTES ? new InlineStore(file, incomplete) : new ThreadStore(file, incomplete);
      let digest: string;
      try {
        await fetchWithRetries(t, file, incomplete, store);
        digest = await store.hex(await sizeOf(incomplete));
      } finally {
        await store.close();
      }
      if (digest === file.etag) break;
      await unlink(incomplete);
      if (check === 2)
        throw new HubError(
          'HUB_CHECKSUM',
          `${t.repo}/${file.path}: the bytes downloaded twice hash to ${digest}, not ${file.etag}; the blob is not kept`,
        );
      t.onNote?.(`${file.path}: the bytes hash to ${digest}, not ${file.etag}; downloading it again`);
    }
    await rename(incomplete, blob);
    return blob;
  } finally {
    await lock.release();
  }
}
