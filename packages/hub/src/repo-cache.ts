// One model repository in the Hugging Face cache, laid out as huggingface_hub writes it:
//   models--ORG--NAME/blobs/<etag>            the bytes, named by the LFS sha256 or the git blob id
//   models--ORG--NAME/snapshots/<commit>/FILE a relative link to ../../blobs/<etag>
//   models--ORG--NAME/refs/<revision>         the commit a branch or tag pointed at, no newline
//   .locks/models--ORG--NAME/<etag>.lock      held while a blob is written
import { lstat, mkdir, readFile, readlink, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { getRepoFolderName } from '@huggingface/hub';

export const COMMIT = /^[0-9a-f]{40}$/;

export class RepoCache {
  readonly folder: string;
  readonly lockFolder: string;

  constructor(
    readonly cacheDir: string,
    readonly repo: string,
  ) {
    const name = getRepoFolderName({ type: 'model', name: repo });
    this.folder = join(cacheDir, name);
    this.lockFolder = join(cacheDir, '.locks', name);
  }

  blobPath(etag: string): string {
    return join(this.folder, 'blobs', etag);
  }

  lockPath(etag: string): string {
    return join(this.lockFolder, `${etag}.lock`);
  }

  snapshotFolder(commit: string): string {
    return join(this.folder, 'snapshots', commit);
  }

  snapshotPath(commit: string, file: string): string {
    return join(this.snapshotFolder(commit), file);
  }

  /** The commit `revision` names here: itself when it is one, else refs/<revision>, else undefined. */
  async commitOf(revision: string): Promise<string | undefined> {
    if (COMMIT.test(revision)) return revision;
    try {
      const commit = (await readFile(join(this.folder, 'refs', revision), 'utf8')).trim();
      return COMMIT.test(commit) ? commit : undefined;
    } catch {
      return undefined;
    }
  }

  async writeRef(revision: string, commit: string): Promise<void> {
    if (revision === commit) return;
    const path = join(this.folder, 'refs', revision);
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    await writeFile(temp, commit);
    await rename(temp, path);
  }

  /** snapshots/<commit>/<file> as a relative link to its blob (replacing a link to another). */
  async link(commit: string, file: string, etag: string): Promise<string> {
    const pointer = this.snapshotPath(commit, file);
    const target = relative(dirname(pointer), this.blobPath(etag));
    await mkdir(dirname(pointer), { recursive: true });
    try {
      if ((await readlink(pointer)) === target) return pointer;
      await unlink(pointer);
    } catch {
      // no link yet, or not a link: a plain file Python wrote on a system without links stays
      if (await exists(pointer)) return pointer;
    }
    try {
      await symlink(target, pointer);
    } catch (err) {
      // another process linked it between the check and here
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return pointer;
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
