// A lock per blob across processes: the lock file is created exclusively and holds its owner's
// pid, host and a token. A lock whose owner is gone (a killed pull) is taken over; an empty one
// older than STALE_EMPTY_MS is a lock file huggingface_hub's filelock left behind, which it does not remove.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 50;
const STALE_EMPTY_MS = 10_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isStale(path: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return false;
  }
  const [pid, host] = text.split(' ');
  if (pid && host) return host === hostname() && !alive(Number(pid));
  try {
    return Date.now() - (await stat(path)).mtimeMs > STALE_EMPTY_MS;
  } catch {
    return false;
  }
}

export interface BlobLock {
  release(): Promise<void>;
}

/** Waits until this process holds `path`; `onWait` is told once when another holds it. */
export async function lockBlob(path: string, onWait?: () => void): Promise<BlobLock> {
  await mkdir(dirname(path), { recursive: true });
  const owner = `${process.pid} ${hostname()} ${randomUUID()}`;
  let told = false;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(owner);
      await handle.close();
      return {
        release: async () => {
          if ((await readFile(path, 'utf8').catch(() => '')) === owner) await unlink(path).catch(() => {});
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await isStale(path)) {
      await unlink(path).catch(() => {});
      continue;
    }
    if (!told) onWait?.();
    told = true;
    await sleep(POLL_MS);
  }
}
