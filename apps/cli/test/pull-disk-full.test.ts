// jepa pull onto a really full disk: a tmpfs of a few pages (mounted here; the tests run as root, and
// a test that cannot mount fails), smaller than the checkpoint the loopback Hub serves. The pull stops
// in one line naming the full disk and the file, keeps the `.incomplete` bytes, and once the disk has
// room the next pull resumes with Range from their count and ends with the Hub's bytes.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliMain, filesOfFolder, HubServer, REFERENCE } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'jepa-pull-disk-full-'));
const disk = join(work, 'disk');
const hub = new HubServer();
const files = filesOfFolder(join(REFERENCE, 'hfvit'), (p) => /^(config\.json|preprocessor_config\.json|model\.safetensors)$/.test(p));
const checkpoint = files.get('model.safetensors') as Buffer;
const etag = createHash('sha256').update(checkpoint).digest('hex');
// 32 pages: room for the small files and a part of the checkpoint only
const FULL_SIZE = 128 * 1024;
let mounted = false;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function jepa(args: string[]): Promise<Run> {
  const env = {
    ...process.env,
    HF_ENDPOINT: hub.url,
    HF_HOME: join(work, 'hf'),
    HF_HUB_CACHE: join(disk, 'hub'),
    JEPA_CACHE: join(work, 'jepa'),
    JEPA_DEVICE: 'cpu',
    HF_TOKEN: '',
    HF_HUB_OFFLINE: '',
  };
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cliMain(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  expect(checkpoint.length).toBeGreaterThan(2 * FULL_SIZE);
  mkdirSync(disk);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${FULL_SIZE}`, 'jepa-full-disk', disk]);
  mounted = true;
  hub.seed('tiny/hfvit', files);
  await hub.start();
});

afterAll(async () => {
  await hub.stop();
  if (mounted) execFileSync('umount', [disk]);
  rmSync(work, { recursive: true, force: true });
});

describe('jepa pull on a full disk', () => {
  it('fails in one line naming the full disk and the file, keeps the bytes, and resumes from them once there is room', async () => {
    const incomplete = join(disk, 'hub', 'models--tiny--hfvit', 'blobs', `${etag}.incomplete`);
    const full = await jepa(['pull', 'tiny/hfvit', '--quiet']);
    expect(full.status).toBe(2);
    const kept = statSync(incomplete).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(checkpoint.length);
    expect(full.stderr).toBe(
      `jepa: ${incomplete}: the disk is full; the ${kept} bytes downloaded so far are kept there and the next pull resumes from them\n`,
    );
    expect(readFileSync(incomplete)).toEqual(checkpoint.subarray(0, kept));
    // tried once: a full disk is not a network failure to retry
    expect(hub.downloadsOf('model.safetensors').filter((r) => r.path.startsWith('/lfs/'))).toHaveLength(1);

    execFileSync('mount', ['-o', 'remount,size=4m', disk]);
    hub.requests.length = 0;
    const pulled = await jepa(['pull', 'tiny/hfvit', '--quiet']);
    expect(pulled.status, pulled.stderr).toBe(0);
    const fetched = hub.downloadsOf('model.safetensors').filter((r) => r.path.startsWith('/lfs/'));
    expect(fetched.map((r) => r.range)).toEqual([`bytes=${kept}-`]);
    expect(readFileSync(join(disk, 'hub', 'models--tiny--hfvit', 'blobs', etag))).toEqual(checkpoint);
    expect(() => statSync(incomplete)).toThrow();
  }, 60_000);
});
