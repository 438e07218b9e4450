// The container image (Containerfile), built with buildah (scripts/container.sh build; no daemon) and
// run with `buildah run` (chroot isolation: the host's network and process table, so the server's
// loopback port and its process are visible from here). Its default command serves the bundled demo
// model on a loopback port; an embedding over HTTP must be the bits `jepa embed` gives on the host
// with the same (portable) addon; SIGTERM must end it cleanly; it must run as a non-root user; and
// `jepa mcp` must answer from the same image.
//
// Slow on a fresh machine (the base image is made with debootstrap, and the addon is compiled inside
// the build), so it builds only the CPU variant this host loads; buildah's layer cache makes a rerun quick. buildah (and root, which its storage needs here) are prerequisites: missing, it fails.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(fileURLToPath(import.meta.url), '../../../..');
const VERSION = JSON.parse(readFileSync(join(repo, 'apps/jepa/package.json'), 'utf8')).version as string;
// Its own name: the bounded build below must not take the full image's tag.
const IMAGE = process.env.JEPA_IMAGE ?? `localhost/jepa-smoke:${VERSION}`;
const DEMO = join(repo, 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf');
const DEMO_ID = 'jepa-demo-vjepa2-untrained';
const SAMPLE = join(repo, 'fixtures/preprocess/sample.jpg');
// The host's run uses the portable build, the one the image builds: a -march=native build-native/
// would be preferred otherwise (native/index.cjs), and its ggml kernels need not give the same bits.
const PORTABLE_ADDON = join(repo, 'native/build/Release/jepa_native.node');
// Measured cold on a fresh machine: 5 min for the base, 15 min for the bounded build, on 2 shared, loaded cores.
const BUILD_MS = 25 * 60_000;

/** The CPU variant `jepa devices` names (the portable build's ggml picks it when the addon loads). */
function cpuVariant(devices: string): string | undefined {
  return /portable build, CPU variant (\S+)/.exec(devices)?.[1];
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(cmd, args, { cwd: repo, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function ok(r: ReturnType<typeof run>, what: string): string {
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${what} exited ${r.status ?? r.signal}:\n${r.stderr.slice(-4000)}\n${r.stdout.slice(-2000)}`);
  return r.stdout;
}

/** Whether two byte strings are equal; where they first differ when not. */
function sameBits(a: Uint8Array, b: Uint8Array): { equal: boolean; why: string } {
  if (a.length !== b.length) return { equal: false, why: `${a.length} bytes against ${b.length}` };
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return { equal: false, why: `byte ${i}: ${a[i]} against ${b[i]}` };
  return { equal: true, why: `${a.length} bytes identical` };
}

/** The payload of a little-endian float32 .npy (after its header). */
function npyPayload(bytes: Uint8Array): Uint8Array {
  const headerLen = bytes[8]! | (bytes[9]! << 8);
  expect(new TextDecoder().decode(bytes.subarray(10, 10 + headerLen))).toContain("'descr': '<f4'");
  return bytes.subarray(10 + headerLen);
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  const port = (s.address() as { port: number }).port;
  await new Promise((done) => s.close(done));
  return port;
}

/** The host pid of the process whose command line holds every one of these arguments, in order. */
function pidWithArgs(args: string[]): number | undefined {
  const wanted = `\0${args.join('\0')}\0`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = `\0${readFileSync(`/proc/${entry}/cmdline`, 'latin1')}`;
      // Node itself, not buildah's chroot-exec that started it (its comm is Node's thread name, MainThread)
      if (cmdline.includes(wanted) && /(^|\/)node$/.test(cmdline.split('\0')[1]!)) return Number(entry);
    } catch {
      // gone in the meantime
    }
  }
  return undefined;
}

/** The real, effective, saved and filesystem uids of a process. */
function uids(pid: number): number[] {
  const line = readFileSync(`/proc/${pid}/status`, 'latin1')
    .split('\n')
    .find((l) => l.startsWith('Uid:'));
  return line!.split(/\s+/).slice(1, 5).map(Number);
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
}

interface ImageConfig {
  User?: string;
  Cmd?: string[] | null;
  Entrypoint?: string[] | null;
  Labels?: Record<string, string>;
  Healthcheck?: { Test?: string[] };
  ExposedPorts?: Record<string, unknown>;
}

describe('the container image (Containerfile, buildah)', () => {
  let container = '';
  let config: ImageConfig = {};
  const scratch = mkdtempSync(join(tmpdir(), 'jepa-container-test-'));

  beforeAll(() => {
    if (spawnSync('buildah', ['--version']).error)
      throw new Error('buildah is not installed: scripts/setup.sh installs it (apt-get install buildah debootstrap)');
    if (process.getuid?.() !== 0) throw new Error('the container test needs root: buildah builds and runs the image with chroot isolation');
    for (const f of [DEMO, SAMPLE, PORTABLE_ADDON]) if (!existsSync(f)) throw new Error(`${f} is missing: run scripts/setup.sh (pnpm build) first`);
    // A bounded build: of ggml's 14 CPU variants only the one this host loads is compiled (CPU_VARIANTS);
    // `scripts/container.sh build` with no CPU_VARIANTS builds them all. Everything else is the full image.
    const hostDevices = ok(
      run(process.execPath, [join(repo, 'apps/cli/dist/main.js'), 'devices'], { ...process.env, JEPA_ADDON: PORTABLE_ADDON }),
      'jepa devices on the host',
    );
    const variant = cpuVariant(hostDevices);
    if (!variant) throw new Error(`jepa devices names no CPU variant:\n${hostDevices}`);
    const t0 = performance.now();
    const build = run('bash', [join(repo, 'scripts/container.sh'), 'build'], { ...process.env, JEPA_IMAGE: IMAGE, CPU_VARIANTS: variant });
    ok(build, 'scripts/container.sh build');
    process.stderr.write(`container: built ${IMAGE} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const inspect = JSON.parse(ok(run('buildah', ['inspect', '--type', 'image', IMAGE]), 'buildah inspect'));
    config = inspect.Docker?.config ?? {};
    container = ok(run('buildah', ['from', '--pull-never', IMAGE]), 'buildah from').trim();
  }, BUILD_MS);

  afterAll(() => {
    if (container) run('buildah', ['rm', container]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('serves the demo model as a non-root user by default, with a healthcheck on /health and OCI labels', () => {
    expect(config.User).toBe('jepa');
    expect(config.Entrypoint ?? []).toEqual([]);
    expect(config.Cmd).toEqual(['jepa', 'serve', '--models-dir', '/models', '--host', '0.0.0.0', '--port', '8080']);
    expect(Object.keys(config.ExposedPorts ?? {})).toEqual(['8080/tcp']);
    expect(config.Healthcheck?.Test?.join(' ')).toContain('http://127.0.0.1:8080/health');
    expect(config.Labels).toMatchObject({
      'org.opencontainers.image.version': VERSION,
      'org.opencontainers.image.licenses': 'MIT',
      'org.opencontainers.image.source': 'https://github.com/jepa-dev/jepa',
      'org.opencontainers.image.title': 'jepa',
    });
    expect(config.Labels?.['org.opencontainers.image.description']).toBeTruthy();
  });

  it('loads the CPU variant the host loads, from the portable addon', () => {
    const env = { ...process.env, JEPA_ADDON: PORTABLE_ADDON };
    const host = ok(run(process.execPath, [join(repo, 'apps/cli/dist/main.js'), 'devices'], env), 'jepa devices on the host');
    const inside = ok(run('buildah', ['run', '--isolation', 'chroot', container, '--', 'jepa', 'devices']), 'jepa devices in the image');
    expect(cpuVariant(host), host).toBeTruthy();
    expect(cpuVariant(inside), inside).toBe(cpuVariant(host));
  });

  it("serves on a loopback port, embeds the sample to the host's jepa embed bits, runs as non-root, and stops cleanly on SIGTERM", async () => {
    const port = await freePort();
    const args = [...config.Cmd!, '--host', '127.0.0.1', '--port', String(port)];
    const child = spawn('buildah', ['run', '--isolation', 'chroot', container, '--', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout!.on('data', (d) => (log += d));
    child.stderr!.on('data', (d) => (log += d));
    const url = `http://127.0.0.1:${port}`;
    let pid: number | undefined;
    try {
      const t0 = performance.now();
      let health = 0;
      while (health !== 200) {
        if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}:\n${log}`);
        if (performance.now() - t0 > 120_000) throw new Error(`no /health 200 in 120 s:\n${log}`);
        health = await fetch(`${url}/health`).then(
          (r) => r.status,
          () => 0,
        );
        if (health !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      process.stderr.write(`container: first /health 200 after ${(performance.now() - t0).toFixed(0)} ms\n`);

      pid = pidWithArgs(args.slice(1));
      expect(pid, `no node process with ${args.join(' ')}`).toBeTypeOf('number');
      expect(uids(pid!), 'real, effective, saved and fs uid').toEqual([10001, 10001, 10001, 10001]);

      const r = await fetch(`${url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: DEMO_ID, input: [{ image: readFileSync(SAMPLE).toString('base64') }], encoding_format: 'base64' }),
      });
      const body = (await r.json()) as { data: { embedding: string }[] };
      expect(r.status, JSON.stringify(body)).toBe(200);
      const served = new Uint8Array(Buffer.from(body.data[0].embedding, 'base64'));

      const out = join(scratch, 'host.npy');
      ok(
        run(process.execPath, [join(repo, 'apps/cli/dist/main.js'), 'embed', '-m', DEMO, SAMPLE, '-o', out], {
          ...process.env,
          JEPA_ADDON: PORTABLE_ADDON,
        }),
        'jepa embed on the host',
      );
      const host = npyPayload(readFileSync(out));
      const verdict = sameBits(served, host);
      expect(verdict.equal, verdict.why).toBe(true);
      // negative control: one flipped bit is seen
      const flipped = host.slice();
      flipped[flipped.length >> 1]! ^= 1;
      expect(sameBits(served, flipped).equal).toBe(false);

      process.kill(pid!, 'SIGTERM');
      const end = await Promise.race([exited(child), new Promise<'late'>((r) => setTimeout(() => r('late'), 30_000))]);
      expect(end, log).toEqual({ code: 0, signal: null });
      expect(log).toContain('SIGTERM: finishing the requests in flight');
      expect(log).toContain('stopped');
    } finally {
      // killing buildah leaves the server running: it goes first
      if (child.exitCode === null && child.signalCode === null) {
        try {
          if (pid !== undefined) process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
        child.kill('SIGKILL');
      }
    }
  }, 240_000);

  it('runs jepa mcp from the same image: initialize and tools/list over stdio, exit when stdin closes', async () => {
    const child = spawn('buildah', ['run', '--isolation', 'chroot', container, '--', 'jepa', 'mcp', '--models-dir', '/models'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const send = (m: unknown) => child.stdin!.write(`${JSON.stringify(m)}\n`);
    const reply = async (id: number) => {
      const t0 = performance.now();
      for (;;) {
        const line = out.split('\n').find((l) => l.includes(`"id":${id}`));
        if (line) return JSON.parse(line);
        if (child.exitCode !== null) throw new Error(`jepa mcp exited ${child.exitCode}:\n${err}`);
        if (performance.now() - t0 > 60_000) throw new Error(`no reply to request ${id} in 60 s:\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'container-test', version: '0' } },
      });
      const init = await reply(1);
      expect(init.result?.serverInfo?.name, JSON.stringify(init)).toBeTruthy();
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const tools = await reply(2);
      expect((tools.result.tools as { name: string }[]).map((t) => t.name)).toContain('embed_image');
      child.stdin!.end();
      const end = await Promise.race([exited(child), new Promise<'late'>((r) => setTimeout(() => r('late'), 30_000))]);
      expect(end, err).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
