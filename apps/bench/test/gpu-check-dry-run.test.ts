// scripts/gpu-check.sh --dry-run: the GPU check's carry packed and sized, copied as the device tool
// sends it, and run from that copy with the CPU standing in for the card (carried Node, bundle
// without node_modules, carried ggml and headers configuring the build, every check, a small bench,
// the report). The CUDA compile and PyTorch are the only steps left out.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

interface Report {
  carry: { totalMiB: number; limitMiB: number; partsMiB: Record<string, number> };
  steps: { step: string; status: string; seconds: number }[];
  checks: { passed: number; failed: number; results: { name: string; pass: boolean; summary: string }[] };
  rows: { model: string; dtype: string; batch: number; jepa: { itemsPerSecond: number }; torchFp16: unknown; parity: { pass: boolean } | null }[];
  target: { verdict: string };
}

describe('gpu-check.sh --dry-run', () => {
  // the copy of what travels is about 60 MiB
  const dir = mkdtempSync(join(tmpdir(), 'jepa-gpu-dry-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('packs under 64 MiB and runs every step but the CUDA compile and PyTorch from the copy, on the CPU', { timeout: 600_000 }, () => {
    const r = spawnSync('bash', ['scripts/gpu-check.sh', '--dry-run', dir], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'out/report.json'), 'utf8')) as Report;
    console.log(`carried ${report.carry.totalMiB.toFixed(1)} MiB; ${report.steps.map((s) => `${s.step} ${s.status} ${s.seconds} s`).join(', ')}`);
    expect(report.carry.totalMiB).toBeLessThanOrEqual(64);
    expect(report.carry.partsMiB['node.xz']).toBeGreaterThan(10);
    const status = Object.fromEntries(report.steps.map((s) => [s.step, s.status]));
    expect(status).toMatchObject({ unpack: 'ok', configure: 'ok', forge: 'ok', machine: 'ok', checks: 'ok', bench: 'ok' });
    for (const skipped of ['build', 'torch', 'hf-fixtures']) expect(status[skipped]).toMatch(/^skipped: dry run/);
    expect(report.checks.failed, JSON.stringify(report.checks.results.filter((c) => !c.pass))).toBe(0);
    expect(report.checks.passed).toBeGreaterThanOrEqual(40);
    expect(report.checks.results.map((c) => c.name)).toContain('graph validation names a node the device cannot run');
    expect(report.rows.map((row) => `${row.dtype} b${row.batch}`)).toEqual(['f16 b1', 'f16 b2', 'f32 b1', 'f32 b2']);
    for (const row of report.rows) {
      expect(row.jepa.itemsPerSecond).toBeGreaterThan(0);
      expect(row.torchFp16).toBeNull();
      expect(row.parity?.pass).toBe(true);
    }
    // PyTorch did not run, so the target is not claimed either way
    expect(report.target.verdict).toBe('not measured');
    const md = readFileSync(join(dir, 'out/report.md'), 'utf8');
    expect(md).toMatch(/## Checks: \d+ passed, 0 failed/);
    expect(md).toMatch(/\| ViT-Ti\/14 \(the LeWM encoder shape\) \| f16 \| 2 \|/);
  });
});
