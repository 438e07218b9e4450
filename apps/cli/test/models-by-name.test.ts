// jepa pull, jepa models and `-m hf:ORG/NAME` through the built CLI, against the loopback Hub: the
// code path a user runs, with only HF_ENDPOINT pointing elsewhere (the real Hub is not reachable here).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readNpy } from '@jepa/preprocess';
import { cliMain, filesOfFolder, HubServer, RedisServer, REFERENCE, seededPng } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HFVIT = join(REFERENCE, 'hfvit');
const work = mkdtempSync(join(tmpdir(), 'jepa-models-by-name-'));
const hub = new HubServer();
let env: Record<string, string> = {};
let image = '';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A child process, without blocking this process's event loop (the Hub runs in it). */
function run(command: string, args: string[], extra: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { env: { ...process.env, ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/** The built CLI. */
function jepa(args: string[], extra: Record<string, string> = {}): Promise<Run> {
  return run(process.execPath, [cliMain(), ...args], extra);
}

function embedding(path: string): Buffer {
  const npy = readNpy(path);
  return Buffer.from((npy.data as Float32Array).buffer);
}

beforeAll(async () => {
  hub.seed(
    'tiny/hfvit',
    filesOfFolder(HFVIT, (p) => /^(config\.json|preprocessor_config\.json|model\.safetensors)$/.test(p)),
  );
  hub.seed(
    'tiny/gated',
    filesOfFolder(HFVIT, (p) => /^(config\.json|model\.safetensors)$/.test(p)),
    { gated: true },
  );
  hub.tokens.add('hf_allowed');
  hub.otherTokens.add('hf_noaccess');
  await hub.start();
  env = {
    HF_ENDPOINT: hub.url,
    HF_HOME: join(work, 'hf'),
    JEPA_CACHE: join(work, 'jepa'),
    JEPA_DEVICE: 'cpu',
    HF_TOKEN: '',
    HF_HUB_OFFLINE: '',
    HF_HUB_CACHE: '',
  };
  image = join(work, 'image.png');
  writeFileSync(image, seededPng(20, 16, 7));
});

afterAll(async () => {
  await hub.stop();
});

describe('models by name through the jepa CLI', () => {
  it('jepa pull prints the GGUF path; -m hf: embeds as the locally converted file does, online and offline', async () => {
    const pulled = await jepa(['pull', 'tiny/hfvit', '--quiet']);
    expect(pulled.status, pulled.stderr).toBe(0);
    expect(pulled.stderr).toBe('');
    const gguf = pulled.stdout.trim();
    expect(gguf.startsWith(join(work, 'jepa', 'hub', 'models--tiny--hfvit'))).toBe(true);

    const local = join(work, 'local.gguf');
    const converted = await jepa(['convert', join(HFVIT, 'model.safetensors'), '-o', local]);
    expect(converted.status, converted.stderr).toBe(0);
    expect(readFileSync(gguf)).toEqual(readFileSync(local));

    const byPath = await jepa(['embed', '-m', local, image, '--threads', '1', '-o', join(work, 'by-path.npy')]);
    expect(byPath.status, byPath.stderr).toBe(0);
    const byName = await jepa(['embed', '-m', 'hf:tiny/hfvit', image, '--threads', '1', '-o', join(work, 'by-name.npy')]);
    expect(byName.status, byName.stderr).toBe(0);
    expect(embedding(join(work, 'by-name.npy'))).toEqual(embedding(join(work, 'by-path.npy')));

    // a fresh jepa cache, the Hub stopped, HF_HUB_OFFLINE=1: converted from the Hugging Face cache alone
    await hub.stop();
    const down = await jepa(['embed', '-m', 'hf:tiny/hfvit', image, '-o', join(work, 'down.npy')], { JEPA_CACHE: join(work, 'jepa-2') });
    expect(down.status).toBe(2);
    expect(down.stderr).toMatch(
      /^jepa: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); the cache has hf:tiny\/hfvit@main: set HF_HUB_OFFLINE=1 to use it\n$/,
    );
    const offline = await jepa(['embed', '-m', 'hf:tiny/hfvit', image, '--threads', '1', '-o', join(work, 'offline.npy')], {
      JEPA_CACHE: join(work, 'jepa-2'),
      HF_HUB_OFFLINE: '1',
    });
    expect(offline.status, offline.stderr).toBe(0);
    expect(embedding(join(work, 'offline.npy'))).toEqual(embedding(join(work, 'by-path.npy')));
    await hub.start(Number(new URL(hub.url).port));
  }, 120_000);

  it('jepa worker -m hf: pulls the model and its shards hold the vectors jepa embed -m hf: writes', async () => {
    const redis = await RedisServer.start();
    const worker = spawn(
      process.execPath,
      [cliMain(), 'worker', 'hub', '-m', 'hf:tiny/hfvit', '--out', join(work, 'shards'), '--redis', redis.url, '-t', '1'],
      { env: { ...process.env, ...env, JEPA_CACHE: join(work, 'jepa-worker') }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let said = '';
    worker.stderr.on('data', (c: Buffer) => (said += c));
    try {
      const added = await jepa(['queue', 'add', 'hub', image, '--redis', redis.url]);
      expect(added.status, added.stderr).toBe(0);
      for (let waited = 0; !/1 embedded/.test(said); waited += 100) {
        if (waited > 60_000) throw new Error(`the worker did not finish its job:\n${said}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // the worker named the model it pulled, not a file
      expect(said).toMatch(/worker on hub: .*\(hfvit\)/);
      const collected = await jepa(['queue', 'collect', 'hub', '-o', join(work, 'collected.npy'), '--redis', redis.url]);
      expect(collected.status, collected.stderr).toBe(0);
      const byName = await jepa(['embed', '-m', 'hf:tiny/hfvit', image, '--threads', '1', '-o', join(work, 'by-name-2.npy')]);
      expect(byName.status, byName.stderr).toBe(0);
      expect(embedding(join(work, 'collected.npy'))).toEqual(embedding(join(work, 'by-name-2.npy')));
    } finally {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.once('close', r));
      await redis.stop();
    }
  }, 120_000);

  it('every command that takes a model takes a reference: info, preprocess, features, index add and search', async () => {
    const info = await jepa(['info', 'hf:tiny/hfvit', '--json', '--no-tensors']);
    expect(info.status, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout).family).toBe('hfvit');
    const pre = await jepa(['preprocess', '-m', 'hf:tiny/hfvit', image, '-o', join(work, 'pre.npy')]);
    expect(pre.status, pre.stderr).toBe(0);
    const map = await jepa(['features', '-m', 'hf:tiny/hfvit', image, '--pca', '-o', join(work, 'map.png'), '--threads', '1']);
    expect(map.status, map.stderr).toBe(0);
    const db = join(work, 'index.db');
    const added = await jepa(['index', 'add', '--db', db, '-m', 'hf:tiny/hfvit', image, '--threads', '1']);
    expect(added.status, added.stderr).toBe(0);
    const found = await jepa(['search', '--db', db, '-m', 'hf:tiny/hfvit', image, '--json', '--threads', '1']);
    expect(found.status, found.stderr).toBe(0);
    // negative control: a name the Hub does not have is refused by each of them
    const missing = await jepa(['info', 'hf:tiny/absent']);
    expect(missing.status).toBe(2);
  }, 120_000);

  it('refuses in one line, with no stack: gated without a token, a token refused or not allowed, no such repo or revision, a bad reference or type', async () => {
    const page = `${hub.url}/tiny/gated`;
    const cases: [string[], Record<string, string>, string][] = [
      [['pull', 'tiny/gated'], {}, `jepa: hf:tiny/gated is gated: accept its terms at ${page}, then set HF_TOKEN (or run huggingface-cli login)\n`],
      [
        ['pull', 'tiny/gated'],
        { HF_TOKEN: 'hf_invalid' },
        `jepa: HF_TOKEN was refused by ${hub.url} (invalid or expired): make a new one at ${hub.url}/settings/tokens\n`,
      ],
      [
        ['pull', 'tiny/gated'],
        { HF_TOKEN: 'hf_noaccess' },
        `jepa: HF_TOKEN has no access to hf:tiny/gated: ask for it at ${page} (or use a token of an account that has it)\n`,
      ],
      [
        ['embed', '-m', 'hf:tiny/missing', image],
        {},
        `jepa: hf:tiny/missing: no such model repository at ${hub.url} (a private one needs HF_TOKEN)\n`,
      ],
      [
        ['pull', 'tiny/hfvit', '--revision', 'nope'],
        {},
        `jepa: hf:tiny/hfvit has no revision 'nope' (a branch, tag or commit of ${hub.url}/tiny/hfvit)\n`,
      ],
      [
        ['embed', '-m', 'hf:tiny', image],
        {},
        "jepa: 'hf:tiny': expected ORG/NAME, a Hugging Face model repository (as in hf:facebook/dinov2-small)\n",
      ],
      [
        ['pull', 'tiny/hfvit', '--type', 'q4'],
        {},
        "jepa: 'tiny/hfvit' --type: type 'q4' is not one of f32, f16, bf16, q8_0, q8_row, q6_k, q5_k, q5_1, q5_0, q4_k, q4_1, q4_0\n",
      ],
    ];
    for (const [args, extra, line] of cases) {
      const r = await jepa(args, { ...extra, JEPA_CACHE: join(work, 'refusals') });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(line);
    }
  });

  it('two jepa pull processes at once download each file once and print the same path', async () => {
    // 2 s of body: long enough for the second process to reach the same blob while the first holds it
    hub.slowStepMs = 250;
    hub.fault('model.safetensors', 'slow');
    const extra = { HF_HOME: join(work, 'hf-concurrent'), JEPA_CACHE: join(work, 'jepa-concurrent') };
    const lfsGets = () => hub.downloadsOf('model.safetensors').filter((r) => r.path.startsWith('/lfs/')).length;
    const before = lfsGets();
    const [a, b] = await Promise.all([jepa(['pull', 'tiny/hfvit'], extra), jepa(['pull', 'tiny/hfvit'], extra)]);
    expect(a.status, a.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    // not a terminal: no progress
    expect(a.stderr + b.stderr).toBe('');
    expect(lfsGets() - before).toBe(1);
  });

  it('shows bytes, rate and time left per file, then the conversion, on a terminal', async () => {
    hub.slowStepMs = 150;
    hub.fault('model.safetensors', 'slow');
    const extra = { HF_HOME: join(work, 'hf-tty'), JEPA_CACHE: join(work, 'jepa-tty') };
    // script(1) gives the command a terminal; what it writes there comes back on script's stdout
    const command = [process.execPath, cliMain(), 'pull', 'tiny/hfvit'].map((a) => `'${a}'`).join(' ');
    const shown = await run('script', ['-qec', command, '/dev/null'], extra);
    expect(shown.status, shown.stdout).toBe(0);
    expect(shown.stdout).toMatch(/model\.safetensors 0\.\d\/0\.3 MiB \d+\.\d MiB\/s \d+ s left/);
    expect(shown.stdout).toMatch(/model\.safetensors 0\.3\/0\.3 MiB/);
    expect(shown.stdout).toMatch(/convert \[#+\] \d+\/\d+/);
    expect(shown.stdout.trim().split('\n').at(-1)).toMatch(/\/f32\.gguf\r?$/);
  });

  it('jepa models lists the caches; jepa models rm empties them', async () => {
    const own = { HF_HOME: join(work, 'hf-models'), JEPA_CACHE: join(work, 'jepa-models') };
    const models = (args: string[]) => jepa(args, own);
    expect((await models(['pull', 'tiny/hfvit'])).status).toBe(0);
    const listed = await models(['models', '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    const cached = JSON.parse(listed.stdout) as {
      repo: string;
      revisions: { refs: string[]; files: { path: string }[] }[];
      converted: { type: string }[];
    }[];
    expect(cached.map((m) => m.repo)).toEqual(['tiny/hfvit']);
    expect(cached[0].revisions[0].refs).toEqual(['main']);
    expect(cached[0].revisions[0].files.map((f) => f.path)).toEqual(['config.json', 'model.safetensors', 'preprocessor_config.json']);
    expect(cached[0].converted.map((c) => c.type)).toEqual(['f32']);
    const text = await models(['models']);
    expect(text.stdout).toMatch(/^hf:tiny\/hfvit {2}0\.\d MiB/);
    expect(text.stdout).toContain('    model.safetensors  0.3 MiB');

    const rm = await models(['models', 'rm', 'hf:tiny/hfvit']);
    expect(rm.status, rm.stderr).toBe(0);
    expect(rm.stdout).toContain(`removed ${join(work, 'hf-models', 'hub', 'models--tiny--hfvit')}`);
    expect(JSON.parse((await models(['models', '--json'])).stdout)).toEqual([]);
    const again = await models(['models', 'rm', 'tiny/hfvit']);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/^jepa: tiny\/hfvit: not in the caches \(.*\)\n$/);
  });
});
