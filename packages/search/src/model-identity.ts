// Which model an index's vectors come from: its name, the file's name and the SHA-256 of its bytes, the
// vector width and the pooling. A query is embedded by the same file and pooling, or refused.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';

export interface IndexModel {
  /** The model's name (general.name). */
  name: string;
  /** The file's base name, for messages. */
  file: string;
  /** The file's absolute path when the index was made: the default model of a query. */
  path?: string;
  /** SHA-256 of the file, hex. */
  digest: string;
  /** The vector width. */
  dim: number;
  /** The pooling of the vectors ('cls', 'mean', ...). */
  pool: string;
}

/** The SHA-256 of a file, read a megabyte at a time. */
export function fileDigest(path: string): string {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, 'r');
  try {
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** The identity of a model file embedding `dim`-wide vectors pooled by `pool`. */
export function modelIdentity(path: string, name: string, dim: number, pool: string): IndexModel {
  statSync(path);
  return { name, file: basename(path), path: resolve(path), digest: fileDigest(path), dim, pool };
}

/** The model in a message: `name (file, sha256 0123abcd…, pool cls)`. */
export function describeModel(m: IndexModel): string {
  return `${m.name} (${m.file}, sha256 ${m.digest.slice(0, 12)}…, ${m.dim}-d, pool ${m.pool})`;
}
