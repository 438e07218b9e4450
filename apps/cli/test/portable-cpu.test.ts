// The portable addon on a laptop-class CPU without AVX-512: `jepa` run under qemu's Haswell model
// (AVX2, FMA, F16C; no AVX-512, no VNNI), where any AVX-512 instruction ends the process with SIGILL.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel, mulberry32 } from '@jepa/gguf';
import { compareTokens, cosine, judge, policyRow } from '@jepa/graph';
import { buildInfo } from '@jepa/native';
import { readNpy, writeNpy } from '@jepa/preprocess';
import { cliMain, QUANTIZE_MAIN, REPO_ROOT, requireBuilt, SAMPLE_JPG } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const main = cliMain();
const quantize = requireBuilt(QUANTIZE_MAIN, 'jepa-quantize');
const sample = SAMPLE_JPG;
const tmp = mkdtempSync(join(tmpdir(), 'jepa-portable-'));
const CPU = 'Haswell-v4';

function underQemu(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync('qemu-x86_64', ['-cpu', CPU, command, ...args], {
    encoding: 'utf8',
    env: { ...process.env, JEPA_DEVICE: 'cpu', ...env },
    timeout: 300_000,
  });
  if (r.error) throw new Error(`qemu-x86_64 did not start (${r.error.message}); scripts/setup.sh installs qemu-user`);
  // qemu names each host feature its model lacks on every thread start: not the program's output
  const err = r.stderr
    .split('\n')
    .filter((l) => !l.includes("TCG doesn't support requested feature"))
    .join('\n');
  return { code: r.status, signal: r.signal, out: r.stdout, err };
}

describe.runIf(buildInfo().portable)('the portable addon on an AVX2 CPU (qemu -cpu Haswell)', () => {
  it('negative control: an AVX-512 instruction dies with SIGILL under the emulated CPU', () => {
    const src = join(tmp, 'avx512.c');
    writeFileSync(
      src,
      '#include <immintrin.h>\nint main(void) { volatile float x = 1.0f; __m512 v = _mm512_set1_ps(x); v = _mm512_add_ps(v, v);\n' +
        '  float out[16]; _mm512_storeu_ps(out, v); return out[3] == 2.0f ? 0 : 1; }\n',
    );
    const exe = join(tmp, 'avx512');
    const cc = spawnSync('cc', ['-O0', '-mavx512f', src, '-o', exe], { encoding: 'utf8' });
    expect(cc.status, cc.stderr).toBe(0);
    const emulated = underQemu(exe, []);
    expect(emulated.code).toBeNull();
    expect(emulated.signal).toBe('SIGILL');
  });

  it('JEPA_CPU_VARIANT forces one variant here, the only CPU device; an unknown one is refused with the list', () => {
    const run = (variant: string) =>
      spawnSync(process.execPath, [main, 'devices', '--json'], { encoding: 'utf8', env: { ...process.env, JEPA_CPU_VARIANT: variant } });
    const forced = run('haswell');
    expect(forced.status, forced.stderr).toBe(0);
    const { build, devices } = JSON.parse(forced.stdout) as { build: ReturnType<typeof buildInfo>; devices: { type: string }[] };
    expect(build.cpuVariant).toBe('haswell');
    expect(devices.filter((d) => d.type === 'cpu')).toHaveLength(1);
    const unknown = run('no-such-cpu');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/JEPA_CPU_VARIANT=no-such-cpu: no .*libggml-cpu-no-such-cpu\.so \(there are: .*haswell/);
  });

  it.runIf(buildInfo().cpuLevel === 'avx512')(
    "JEPA_CPU=avx2 runs the own kernels and ggml's at the AVX2 level here; an unknown or unrunnable level is refused",
    () => {
      const run = (env: NodeJS.ProcessEnv, args = ['devices', '--json']) =>
        spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
      const lowered = run({ JEPA_CPU: 'avx2' });
      expect(lowered.status, lowered.stderr).toBe(0);
      const { build } = JSON.parse(lowered.stdout) as { build: ReturnType<typeof buildInfo> };
      expect(build.cpuLevel).toBe('avx2');
      expect(build.cpuVariant).toBe(build.cpu.avx_vnni ? 'alderlake' : 'haswell');
      expect(build.cpu.avx512).toBeUndefined();
      expect([build.panelKernelF32, build.flashAttnCpu, build.geluErfCpu, build.geluErfCpuRational]).toEqual([
        'avx2',
        'avx2',
        'libmvec-avx2',
        'rational-avx2',
      ]);
      expect(build.panelKernel).toBe(build.cpu.avx_vnni ? 'avx-vnni' : 'avx2');
      expect(run({ JEPA_CPU: 'avx2' }, ['devices']).stdout).toMatch(/CPU kernels at avx2 \(JEPA_CPU\): .*f32 \/ f16 matmul avx2 panels/);
      // an explicit ggml variant still wins
      const both = JSON.parse(run({ JEPA_CPU: 'avx2', JEPA_CPU_VARIANT: 'haswell' }).stdout) as { build: ReturnType<typeof buildInfo> };
      expect([both.build.cpuLevel, both.build.cpuVariant]).toEqual(['avx2', 'haswell']);
      const top = JSON.parse(run({ JEPA_CPU: 'avx512' }).stdout) as { build: ReturnType<typeof buildInfo> };
      expect([top.build.cpuLevel, top.build.panelKernelF32]).toEqual(['avx512', 'avx512']);
      const unknown = run({ JEPA_CPU: 'sse4' });
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toMatch(/JEPA_CPU=sse4: not a level \(avx2, avx512\)/);
    },
  );

  // qemu's TCG (Debian's 7.2) has no AVX-512 at all, so an AVX-512 CPU without VNNI (Skylake-SP, Cascade
  // Lake's predecessor) cannot be emulated: JEPA_CPU_VNNI=0 shows a real AVX-512 CPU to the engine as one.
  it.runIf(buildInfo().cpuLevel === 'avx512')(
    'JEPA_CPU_VNNI=0 at avx512 chooses what a Skylake-SP runs: AVX-512 f32 and q8_row panels, the block types on plain AVX2, skylakex',
    () => {
      const r = spawnSync(process.execPath, [main, 'devices', '--json'], { encoding: 'utf8', env: { ...process.env, JEPA_CPU_VNNI: '0' } });
      expect(r.status, r.stderr).toBe(0);
      const { build } = JSON.parse(r.stdout) as { build: ReturnType<typeof buildInfo> };
      expect([build.cpuLevel, build.cpuVnni, build.cpuVariant]).toEqual(['avx512', false, 'skylakex']);
      expect([build.panelKernelF32, build.flashAttnCpu, build.panelKernel, build.panelKernelRows]).toEqual(['avx512', 'avx512', 'avx2', 'avx512']);
      expect(build.panelKernelsRows).toEqual(['avx512', 'avx2']);
      const text = spawnSync(process.execPath, [main, 'devices'], { encoding: 'utf8', env: { ...process.env, JEPA_CPU_VNNI: '0' } });
      expect(text.stdout).toMatch(/CPU kernels at avx512 without VNNI \(JEPA_CPU_VNNI=0\): .*q8_row matmul avx512 panels/);
      const bad = spawnSync(process.execPath, [main, 'devices'], { encoding: 'utf8', env: { ...process.env, JEPA_CPU_VNNI: 'no' } });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/JEPA_CPU_VNNI=no: not 0 or 1/);
    },
  );

  it('jepa devices names the haswell variant and the AVX2 level of the own kernels', { timeout: 300_000 }, () => {
    const r = underQemu(process.execPath, [main, 'devices', '--json']);
    expect(r.code, r.err).toBe(0);
    const { build } = JSON.parse(r.out) as { build: ReturnType<typeof buildInfo> };
    expect(build.portable).toBe(true);
    expect(build.cpuVariant).toBe('haswell');
    expect(build.cpu.avx2).toBe(true);
    expect(build.cpu.avx512).toBeUndefined();
    expect(build.cpuLevel).toBe('avx2');
    expect(build.panelKernel).toBe('avx2'); // Haswell has no AVX-VNNI: q8_0 / q4 on the plain-AVX2 panels
    expect(build.cpuVnni).toBe(true); // allowed, but there is none
    expect(build.panelKernelRows).toBe('avx2'); // q8_row on vpmaddubsw, not dequantized
    expect(build.panelKernelsRows).toEqual(['avx2']);
    expect(build.panelKernelF32).toBe('avx2');
    expect(build.flashAttnCpu).toBe('avx2');
    expect(build.geluErfCpu).toBe('libmvec-avx2');
    expect(build.geluErfCpuRational).toBe('rational-avx2');
    const above = underQemu(process.execPath, [main, 'devices'], { JEPA_CPU: 'avx512' });
    expect(above.code).toBe(2);
    expect(above.err).toMatch(/JEPA_CPU=avx512: this CPU runs avx2 at most/);
  });

  it('jepa embed runs there and agrees with this machine to float rounding', { timeout: 300_000 }, () => {
    const model = forgeModel('hfvit', { seed: 11, path: join(tmp, 'hfvit.gguf') }).path;
    const emulated = underQemu(process.execPath, [main, 'embed', '-m', model, sample, '-o', join(tmp, 'haswell.npy')]);
    expect(emulated.code, emulated.err).toBe(0);
    const host = spawnSync(process.execPath, [main, 'embed', '-m', model, sample, '-o', join(tmp, 'host.npy')], { encoding: 'utf8' });
    expect(host.status, host.stderr).toBe(0);
    const a = readNpy(join(tmp, 'haswell.npy'));
    const b = readNpy(join(tmp, 'host.npy'));
    expect(a.shape).toEqual(b.shape);
    expect(cosine(a.data as Float32Array, b.data as Float32Array)).toBeGreaterThan(0.99999);
  });

  it('a RoPE clip model with the flash kernel (128 tokens) runs there at the AVX2 level and agrees with this machine', { timeout: 300_000 }, () => {
    const model = forgeModel('vjepa2', { seed: 12, path: join(tmp, 'vjepa2.gguf') }).path;
    const rand = mulberry32(5);
    const x = new Float32Array(3 * 4 * 32 * 32).map(() => rand() * 2 - 1); // 2 x 8 x 8 tokens
    writeNpy(join(tmp, 'clip.npy'), x, [1, 3, 4, 32, 32]);
    const args = (out: string) => [main, 'embed', '-m', model, '--input-npy', join(tmp, 'clip.npy'), '--pool', 'none', '-o', join(tmp, out)];
    const emulated = underQemu(process.execPath, args('clip-haswell.npy'));
    expect(emulated.code, emulated.err).toBe(0);
    const host = spawnSync(process.execPath, args('clip-host.npy'), { encoding: 'utf8' });
    expect(host.status, host.stderr).toBe(0);
    const a = readNpy(join(tmp, 'clip-haswell.npy'));
    const b = readNpy(join(tmp, 'clip-host.npy'));
    expect(a.shape).toEqual([1, 128, 32]);
    expect(cosine(a.data as Float32Array, b.data as Float32Array)).toBeGreaterThan(0.99999);
  });

  it('a q8_row model runs there on the plain-AVX2 kernel with the bits this machine gives at JEPA_CPU=avx2 JEPA_CPU_VNNI=0', {
    timeout: 300_000,
  }, () => {
    const f32 = forgeModel('hfvit', { seed: 13, path: join(tmp, 'hfvit-13.gguf') }).path;
    const rows = join(tmp, 'hfvit-13-q8_row.gguf');
    const q = spawnSync(process.execPath, [quantize, f32, rows, 'q8_row'], { encoding: 'utf8' });
    expect(q.status, q.stderr).toBe(0);
    const args = (m: string, out: string) => [main, 'embed', '-m', m, sample, '--pool', 'none', '-o', join(tmp, out)];
    const emulated = underQemu(process.execPath, args(rows, 'rows-haswell.npy'));
    expect(emulated.code, emulated.err).toBe(0);
    const plain = { ...process.env, JEPA_CPU: 'avx2', JEPA_CPU_VNNI: '0' };
    const devices = spawnSync(process.execPath, [main, 'devices', '--json'], { encoding: 'utf8', env: plain });
    const { build } = JSON.parse(devices.stdout) as { build: ReturnType<typeof buildInfo> };
    expect([build.cpuLevel, build.cpuVariant, build.cpuVnni, build.panelKernelRows, build.panelKernel]).toEqual([
      'avx2',
      'haswell',
      false,
      'avx2',
      'avx2',
    ]);
    const host = spawnSync(process.execPath, args(rows, 'rows-host.npy'), { encoding: 'utf8', env: plain });
    expect(host.status, host.stderr).toBe(0);
    const a = readNpy(join(tmp, 'rows-haswell.npy'));
    const b = readNpy(join(tmp, 'rows-host.npy'));
    expect(a.shape).toEqual(b.shape);
    expect(Buffer.from((a.data as Float32Array).buffer).equals(Buffer.from((b.data as Float32Array).buffer))).toBe(true);
    // control: the f32 model's tokens are near but not these bits
    const reference = spawnSync(process.execPath, args(f32, 'f32-host.npy'), { encoding: 'utf8', env: plain });
    expect(reference.status, reference.stderr).toBe(0);
    const c = readNpy(join(tmp, 'f32-host.npy')).data as Float32Array;
    expect(Buffer.from(c.buffer).equals(Buffer.from((a.data as Float32Array).buffer))).toBe(false);
    expect(cosine(c, a.data as Float32Array)).toBeGreaterThan(0.99);
  });

  it('the V-JEPA 2 fixture meets the f32 tier there against its float64 golden, and as q8_row the q8-row tier; the wrong RoPE layout fails both', {
    timeout: 300_000,
  }, () => {
    const folder = join(REPO_ROOT, 'fixtures/reference/vjepa2');
    const f32 = join(tmp, 'vjepa2-fixture.gguf');
    const rows = join(tmp, 'vjepa2-fixture-q8_row.gguf');
    const convert = spawnSync(process.execPath, [main, 'convert', folder, '--dtype', 'f32', '-o', f32], { encoding: 'utf8' });
    expect(convert.status, convert.stderr).toBe(0);
    const q = spawnSync(process.execPath, [quantize, f32, rows, 'q8_row'], { encoding: 'utf8' });
    expect(q.status, q.stderr).toBe(0);
    const golden = readNpy(join(folder, 'last_hidden_state.npy')).data as Float32Array;
    const pooled = readNpy(join(folder, 'pooled.npy')).data as Float32Array;
    const wrong = readNpy(join(folder, 'last_hidden_state_wrong_layout.npy')).data as Float32Array;
    const dim = 160;
    const mean = (t: Float32Array) =>
      Float32Array.from({ length: dim }, (_, d) => {
        let sum = 0;
        for (let i = d; i < t.length; i += dim) sum += t[i]!;
        return sum / (t.length / dim);
      });
    for (const [model, tier] of [
      [f32, 'f32'],
      [rows, 'q8-row'],
    ] as const) {
      const out = join(tmp, `vjepa2-fixture-${tier}-haswell.npy`);
      const emulated = underQemu(process.execPath, [
        main,
        'embed',
        '-m',
        model,
        '--input-npy',
        join(folder, 'input.npy'),
        '--pool',
        'none',
        '-o',
        out,
      ]);
      expect(emulated.code, emulated.err).toBe(0);
      const tokens = readNpy(out).data as Float32Array;
      const row = policyRow('cpu', 'video', tier);
      const verdict = judge(row, compareTokens(tokens, golden, dim), cosine(mean(tokens), pooled));
      expect(verdict.failures, `${tier}: ${verdict.summary}`).toEqual([]);
      expect(judge(row, compareTokens(tokens, wrong, dim)).failures, tier).not.toEqual([]);
    }
  });
});
