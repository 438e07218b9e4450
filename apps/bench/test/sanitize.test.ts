// The addon under ASan and UBSan (JEPA_SANITIZE=address,undefined, native/build-sanitize): the native
// tests, the golden suites of every family at every kernel level this CPU can force, and an engine
// fuzz smoke, each in a Node with libasan preloaded and the sanitized addon chosen by JEPA_ADDON; any
// sanitizer report fails. Then a leak check the sanitizers cannot make inside Node: resident memory
// across create/encode/dispose cycles stays bounded. The root config runs it as the 'sanitize' project.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '@jepa/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const ADDON = join(REPO_ROOT, 'native/build-sanitize/Release/jepa_native.node');
const BENCH = join(REPO_ROOT, 'apps/bench/dist/main.js');
const VITEST = join(REPO_ROOT, 'node_modules/vitest/vitest.mjs');

function sanitizerEnv(): NodeJS.ProcessEnv {
  const libasan = execFileSync('gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8' }).trim();
  if (!existsSync(libasan)) throw new Error(`gcc names ${libasan} as libasan, which is not there: install gcc's libasan (scripts/setup.sh)`);
  return {
    ...process.env,
    LD_PRELOAD: libasan,
    JEPA_ADDON: ADDON,
    // Node and V8 keep memory until exit on purpose: leaks are checked by the RSS test below instead
    ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1:allocator_may_return_null=1',
    UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
  };
}

/** Colour escapes, which the inner vitest writes when the outer one forces colour. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const SANITIZER_REPORT = /ERROR: AddressSanitizer|runtime error:|ERROR: UndefinedBehaviorSanitizer/;

/** Runs a command to its end; resolves with its exit status and its output, both streams together. */
function runAll(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; signal: string | null; output: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const add = (b: Buffer) => {
      output += b.toString();
      if (output.length > 4_000_000) output = output.slice(-2_000_000);
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, ms: performance.now() - t0 });
    });
  });
}

/** The kernel-level projects of the root config this CPU has (the same rule as vitest.config.ts). */
function levelProjects(): string[] {
  const flags = execFileSync('cat', ['/proc/cpuinfo'], { encoding: 'utf8' });
  const has = (f: string) => new RegExp(` ${f}( |$)`, 'm').test(flags);
  const avx512 = has('avx2') && has('fma') && has('f16c') && has('avx512f');
  const vnni = has('avx512_vnni') || has('avx_vnni') || has('amx_int8');
  return [
    ...(avx512 ? ['kernels at JEPA_CPU=avx2'] : []),
    ...(vnni ? ['kernels without VNNI (JEPA_CPU_VNNI=0)'] : []),
    ...(avx512 && has('avx_vnni') ? ['kernels at JEPA_CPU=avx2 without VNNI'] : []),
  ];
}

const GOLDEN_FILES = [
  'packages/native/test/',
  'packages/convert/test/parity.test.ts',
  'packages/graph/test/predictor-golden.test.ts',
  'packages/graph/test/heads-golden.test.ts',
  'packages/graph/test/clip-batch.test.ts',
  'packages/worldmodel/test/lewm-golden.test.ts',
  'packages/worldmodel/test/ac-golden.test.ts',
];

describe('the addon under AddressSanitizer and UndefinedBehaviorSanitizer', () => {
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    // build (or bring up to date) the sanitized addon; a build from scratch is ggml at -march=native plus the addon
    const t0 = performance.now();
    execFileSync(process.execPath, [join(REPO_ROOT, 'native/build.mjs')], {
      cwd: join(REPO_ROOT, 'native'),
      env: { ...process.env, JEPA_SANITIZE: 'address,undefined' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    process.stderr.write(`sanitize: the ASan/UBSan addon built in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    env = sanitizerEnv();
  }, 900_000);

  it('the loaded addon is instrumented, and the same flags catch an overflow (negative control)', async () => {
    const symbols = execFileSync('nm', ['-D', ADDON], { encoding: 'utf8' });
    expect(symbols).toMatch(/__asan_report_(load|store)/);
    expect(symbols).toMatch(/__ubsan_handle_/);
    // the sanitized build links ggml for this CPU (nativeCpu), the default build/ is portable: this is the one loaded
    const native = pathToFileURL(join(REPO_ROOT, 'packages/native/dist/index.js')).href;
    const r = await runAll(
      ['--input-type=module', '-e', `const b = await import('${native}'); console.log(JSON.stringify(b.buildInfo()))`],
      env,
      60_000,
    );
    expect(r.output).not.toMatch(SANITIZER_REPORT);
    expect(r.code, r.output).toBe(0);
    expect(JSON.parse(r.output.trim().split('\n').at(-1)!)).toMatchObject({ nativeCpu: true, portable: false });
    const dir = mkdtempSync(join(tmpdir(), 'jepa-sanitize-control-'));
    writeFileSync(join(dir, 'overflow.cpp'), 'int main(int argc, char**) { int* a = new int[4]; int v = a[argc + 3]; delete[] a; return v; }\n');
    execFileSync('g++', [
      '-fsanitize=address,undefined',
      '-fno-omit-frame-pointer',
      '-fno-sanitize-recover=undefined',
      '-g',
      '-o',
      join(dir, 'overflow'),
      join(dir, 'overflow.cpp'),
    ]);
    const control = spawnSync(join(dir, 'overflow'), { encoding: 'utf8' });
    expect(control.status).not.toBe(0);
    expect(control.stderr).toMatch(/ERROR: AddressSanitizer: heap-buffer-overflow/);
  }, 120_000);

  it('native tests and every family golden suite, at the default level and every level this CPU can force', async () => {
    const projects = ['@jepa/native', '@jepa/convert', '@jepa/graph', '@jepa/worldmodel', ...levelProjects()];
    const args = [VITEST, 'run', ...projects.flatMap((p) => ['--project', p]), ...GOLDEN_FILES];
    const r = await runAll(args, env, 1_500_000);
    const plain = r.output.replace(ANSI, '');
    const summary = plain.match(/^\s*(Test Files|Tests)\s.*$/gm) ?? [];
    process.stderr.write(`sanitize: ${projects.join(', ')} in ${(r.ms / 1000).toFixed(0)} s: ${summary.map((l) => l.trim()).join('; ')}\n`);
    expect(plain.match(SANITIZER_REPORT)?.[0] ?? null, plain.slice(-6000)).toBeNull();
    expect({ code: r.code, signal: r.signal }, plain.slice(-6000)).toEqual({ code: 0, signal: null });
    expect(summary.join('\n')).toMatch(/Tests\s+(\d+ skipped \| )?\d+ passed/);
    expect(summary.join('\n')).not.toMatch(/failed/);
  }, 1_500_000);

  it('an engine fuzz smoke: 300 cases, no finding, no sanitizer report', async () => {
    const out = mkdtempSync(join(tmpdir(), 'jepa-sanitize-fuzz-'));
    const r = await runAll(
      [BENCH, 'fuzz-engine', '--inputs', '300', '--seconds', '600', '--seed', '5', '--out', out, '--memory-mib', '4096'],
      env,
      660_000,
    );
    expect(r.output.match(SANITIZER_REPORT)?.[0] ?? null, r.output.slice(-6000)).toBeNull();
    expect(r.output, r.output.slice(-6000)).toMatch(/300 cases .* 0 findings/);
    expect(r.code).toBe(0);
  }, 700_000);
});
