// A model repository as the Hub stores it, for the loopback Hub: files at a commit, each either kept
// in git (its etag the git blob id) or in LFS (its etag the sha256), and branches naming commits.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface HubFile {
  path: string;
  bytes: Buffer;
  lfs: boolean;
  /** sha256 for LFS, git's blob id otherwise: the Hub's etag and the cache's blob name. */
  etag: string;
  /** The git blob id of the file, or of its LFS pointer. */
  oid: string;
}

export interface HubRepo {
  id: string;
  gated: boolean;
  branches: Map<string, string>;
  commits: Map<string, Map<string, HubFile>>;
}

// the extensions the Hub's default .gitattributes sends to LFS
const LFS = /\.(safetensors|bin|pt|pth|pth\.tar|onnx|h5|msgpack|ckpt|tar|gz|npy)$/;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const gitBlob = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

export function hubFile(path: string, bytes: Buffer): HubFile {
  const lfs = LFS.test(path);
  const pointer = Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(bytes)}\nsize ${bytes.length}\n`);
  return { path, bytes, lfs, etag: lfs ? sha256(bytes) : gitBlob(bytes), oid: gitBlob(lfs ? pointer : bytes) };
}

/** A commit id for a set of files: the same files give the same commit. */
export function commitOf(files: Iterable<HubFile>, salt = ''): string {
  const h = createHash('sha1').update(salt);
  for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) h.update(`${f.path}\0${f.etag}\n`);
  return h.digest('hex');
}

/** The files of a folder (recursively, '/'-separated paths), optionally renamed or filtered by `pick`. */
export function filesOfFolder(folder: string, pick: (path: string) => boolean = () => true): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (rel: string) => {
    for (const name of readdirSync(join(folder, rel))) {
      const path = rel ? `${rel}/${name}` : name;
      if (statSync(join(folder, path)).isDirectory()) walk(path);
      else if (pick(path)) out.set(path, readFileSync(join(folder, path)));
    }
  };
  walk('');
  return out;
}
