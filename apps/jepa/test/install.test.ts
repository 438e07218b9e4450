// Outside the monorepo: every publishable package packed with `pnpm pack` (scripts/pack.mjs), installed
// with npm into a fresh project in a temp folder (third-party dependencies from the registry, every one
// of ours from its tarball), then a three-line library script and `npx jepa embed` run there, both
// checked bit for bit against the same two runs inside the repository.
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(fileURLToPath(import.meta.url), '../../../..');
const DEMO = join(repo, 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf');
const SAMPLE = join(repo, 'fixtures/preprocess/sample.jpg');
const THREADS = '2';

interface Packed {
  name: string;
  version: string;
  dir: string;
  tarball: string;
  bytes: number;
}

/** Whether two outputs are the same bits; where they first differ when not. */
function sameBits(a: Uint8Array, b: Uint8Array): { equal: boolean; why: string } {
  if (a.length !== b.length) return { equal: false, why: `${a.length} bytes against ${b.length}` };
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return { equal: false, why: `byte ${i}: ${a[i]} against ${b[i]}` };
  return { equal: true, why: `${a.length} bytes identical` };
}

/** The library script: embed one image with @jepa/graph, write the pooled vector's float32 bytes. */
function embedScript(graph: string, input: string): string {
  return [
    `import { writeFileSync } from 'node:fs';`,
    `import { Model } from '${graph}';`,
    `import { ModelInput } from '${input}';`,
    `const [file, image, out] = process.argv.slice(2);`,
    `const model = await Model.load(file, { threads: ${THREADS} });`,
    `const x = await new ModelInput(model.spec).image(image);`,
    `const y = await model.createContext().encode({ data: x.data, shape: [1, ...x.shape] });`,
    `writeFileSync(out, y.pool(model.spec.enc.nCls > 0 ? 'cls' : 'mean'));`,
    `process.exit(0);`,
    '',
  ].join('\n');
}

/** @jepa/gguf and @jepa/preprocess on their own: read the demo model, preprocess the sample, and say which native libraries got loaded. */
const NO_NATIVE_SCRIPT = `
const loaded = [];
const dlopen = process.dlopen;
process.dlopen = (module, filename, ...rest) => { loaded.push(filename); return dlopen.call(process, module, filename, ...rest); };
const { loadModelSpec } = await import('@jepa/gguf');
const { preprocessImage, readImageFile, recipeFromPreKeys } = await import('@jepa/preprocess');
const [file, image] = process.argv.slice(2);
const spec = loadModelSpec(file);
const t = preprocessImage(readImageFile(image), recipeFromPreKeys(spec.pre));
const before = [...loaded];
await import('sharp'); // positive control: a package that does load a .node file is seen
console.log(JSON.stringify({ family: spec.family, shape: t.shape, loaded: before, sharp: loaded.slice(before.length) }));
`;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status ?? r.signal}:\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

/** The npy payload (after its header) as bytes. */
function npyPayload(bytes: Uint8Array): Uint8Array {
  const headerLen = bytes[8]! | (bytes[9]! << 8);
  return bytes.subarray(10 + headerLen);
}

describe('jepa installed from its tarballs in a fresh project', () => {
  let project = '';
  let scratch = '';
  let packed: Packed[] = [];
  let lock: { packages: Record<string, { version?: string; resolved?: string; link?: boolean }> };

  beforeAll(() => {
    ok(run(process.execPath, [join(repo, 'scripts/pack.mjs')], repo), 'scripts/pack.mjs');
    packed = JSON.parse(readFileSync(join(repo, 'tmp/pack/manifest.json'), 'utf8')) as Packed[];
    // without the prebuilt binary @jepa/addon's install step builds ggml from source (many minutes)
    if (!packed.some((p) => p.name === '@jepa/addon-linux-x64')) throw new Error('scripts/pack.mjs packed no @jepa/addon-linux-x64');
    project = mkdtempSync(join(tmpdir(), 'jepa-install-'));
    scratch = mkdtempSync(join(tmpdir(), 'jepa-install-repo-'));
    // Every one of our names comes from its tarball, as a direct dependency and wherever it is a
    // dependency of another (overrides): none may be fetched from the public registry, where these
    // names may belong to strangers.
    const ours = Object.fromEntries(packed.map((p) => [p.name, `file:${join(repo, p.tarball)}`]));
    const manifest = { name: 'jepa-install-test', version: '0.0.0', private: true, type: 'module', dependencies: ours, overrides: ours };
    writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const t0 = performance.now();
    ok(run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], project), 'npm install');
    const seconds = (performance.now() - t0) / 1000;
    const kib = Number(execFileSync('du', ['-sk', join(project, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]);
    const total = packed.reduce((s, p) => s + p.bytes, 0);
    console.log(
      `install: ${packed.length} tarballs (${(total / 1024 / 1024).toFixed(2)} MiB) installed with npm in ${seconds.toFixed(1)} s; ` +
        `node_modules ${(kib / 1024).toFixed(1)} MiB (${project})`,
    );
    for (const p of packed) console.log(`  ${p.name}@${p.version}: ${(p.bytes / 1024).toFixed(1)} KiB`);
    lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'));
  });

  afterAll(() => {
    if (process.env.JEPA_KEEP_INSTALL) return;
    if (project) rmSync(project, { recursive: true, force: true });
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('takes every @jepa/* and jepa package from the local tarballs, and not onnxruntime-node', () => {
    const tarballs = new Map(packed.map((p) => [p.name, resolve(repo, p.tarball)]));
    const seen = new Set<string>();
    for (const [key, entry] of Object.entries(lock.packages)) {
      const m = /(?:^|\/)node_modules\/((?:@jepa\/[^/]+)|jepa)$/.exec(key);
      expect(key.endsWith('node_modules/onnxruntime-node'), key).toBe(false);
      if (!m) continue;
      const name = m[1]!;
      expect(tarballs.has(name), `${key} is one of ours`).toBe(true);
      expect(entry.resolved?.startsWith('file:'), `${key} resolved from ${entry.resolved}`).toBe(true);
      expect(resolve(project, entry.resolved!.slice('file:'.length)), key).toBe(tarballs.get(name));
      seen.add(name);
    }
    expect([...seen].sort()).toEqual([...tarballs.keys()].sort());
    for (const name of ['jepa-quantize', 'jepa-bench', 'jepa']) expect(existsSync(join(project, 'node_modules/.bin', name)), name).toBe(true);
  });

  it('@jepa/gguf and @jepa/preprocess run without loading any native code', () => {
    for (const name of ['@jepa/gguf', '@jepa/preprocess']) {
      const deps = lock.packages[`node_modules/${name}`] as { dependencies?: Record<string, string> };
      // @jepa/errors, the one error shape, is plain JavaScript; any other of ours could bring the addon
      expect(
        Object.keys(deps.dependencies ?? {}).filter((d) => d.startsWith('@jepa/')),
        name,
      ).toEqual(['@jepa/errors']);
    }
    writeFileSync(join(project, 'no-native.mjs'), NO_NATIVE_SCRIPT);
    const out = JSON.parse(ok(run(process.execPath, ['no-native.mjs', DEMO, SAMPLE], project), 'no-native.mjs')) as {
      family: string;
      shape: number[];
      loaded: string[];
      sharp: string[];
    };
    expect(out.family).toBe('vjepa2');
    expect(out.shape.length).toBe(3);
    expect(out.loaded).toEqual([]);
    expect(out.sharp.some((f) => f.endsWith('.node'))).toBe(true);
  });

  it('a three-line @jepa/graph script gives the bits of the same script in the repository', () => {
    writeFileSync(join(project, 'embed.mjs'), embedScript('@jepa/graph', '@jepa/input'));
    ok(run(process.execPath, ['embed.mjs', DEMO, SAMPLE, 'vector.f32'], project), 'embed.mjs in the fresh project');
    const graph = pathToFileURL(join(repo, 'packages/graph/dist/index.js')).href;
    const input = pathToFileURL(join(repo, 'packages/input/dist/index.js')).href;
    writeFileSync(join(scratch, 'embed.mjs'), embedScript(graph, input));
    ok(run(process.execPath, ['embed.mjs', DEMO, SAMPLE, 'vector.f32'], scratch), 'embed.mjs with the workspace packages');
    const installed = readFileSync(join(project, 'vector.f32'));
    const inRepo = readFileSync(join(scratch, 'vector.f32'));
    expect(installed.length).toBe(192 * 4);
    const verdict = sameBits(installed, inRepo);
    console.log(`library script: ${verdict.why}`);
    expect(verdict.equal, verdict.why).toBe(true);
  });

  it('npx jepa embed gives the bits of apps/cli/dist/main.js embed in the repository', () => {
    const args = ['embed', '-m', DEMO, SAMPLE, '--threads', THREADS, '-o'];
    // --no: never fetch a `jepa` from the registry when the local bin is missing
    ok(run('npx', ['--no', '--', 'jepa', ...args, 'out.npy'], project), 'npx jepa embed');
    ok(run(process.execPath, [join(repo, 'apps/cli/dist/main.js'), ...args, join(scratch, 'out.npy')], repo), 'jepa embed in the repository');
    const installed = readFileSync(join(project, 'out.npy'));
    const verdict = sameBits(installed, readFileSync(join(scratch, 'out.npy')));
    console.log(`jepa embed: ${verdict.why}`);
    expect(verdict.equal, verdict.why).toBe(true);
    if (existsSync(join(project, 'vector.f32')))
      console.log(
        `jepa embed's row against the library script's vector: ${sameBits(npyPayload(installed), readFileSync(join(project, 'vector.f32'))).why}`,
      );
  });

  it('the other two commands run from their shims; jepa-bench peers says onnxruntime-node is missing', () => {
    expect(ok(run('npx', ['--no', '--', 'jepa-quantize', '--help'], project), 'jepa-quantize --help')).toContain('Usage: jepa-quantize');
    expect(ok(run('npx', ['--no', '--', 'jepa-bench', '--help'], project), 'jepa-bench --help')).toContain('Usage: jepa-bench');
    const peers = run('npx', ['--no', '--', 'jepa-bench', 'peers', '--threads', '1', '--dir', join(scratch, 'peers')], project);
    expect(peers.status).toBe(1);
    expect(peers.stderr).toContain('onnxruntime-node is not installed');
  });

  it('negative control: the comparison sees a single flipped bit and a missing byte', () => {
    const a = readFileSync(
      join(
        existsSync(join(project, 'out.npy')) ? project : repo,
        existsSync(join(project, 'out.npy')) ? 'out.npy' : 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf',
      ),
    );
    const flipped = Uint8Array.from(a);
    const at = flipped.length - 3;
    flipped[at] = flipped[at]! ^ 0x01;
    expect(sameBits(a, flipped).equal).toBe(false);
    expect(sameBits(a, a.subarray(0, a.length - 1)).equal).toBe(false);
    expect(sameBits(a, Uint8Array.from(a)).equal).toBe(true);
  });
});
