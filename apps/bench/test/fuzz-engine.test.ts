// The engine fuzzer: its kept findings replay to the refusal their fix gives; a short campaign of a
// fixed seed finds nothing; and the harness sees every kind of finding a child can make (negative
// controls: a child that aborts, hangs, grows past the budget, returns NaN or throws a foreign error).
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, requireBuilt } from '@jepa/testing';
import { describe, expect, it } from 'vitest';
import { replayNames } from '../src/fuzz/engine-fuzz.js';
import { EngineHarness } from '../src/fuzz/engine-harness.js';

const run = promisify(execFile);
const BENCH = join(REPO_ROOT, 'apps/bench/dist/main.js');
const CHILD = join(REPO_ROOT, 'apps/bench/dist/fuzz/engine-child.js');
const REGRESSIONS = join(REPO_ROOT, 'apps/bench/test/fuzz-engine-regressions');

interface Row {
  file: string;
  outcome: { status: string; stage?: string; code?: string; kind?: string };
}

describe('jepa-bench fuzz-engine', () => {
  it('replays every kept finding to the refusal its fix gives', async () => {
    requireBuilt(BENCH, 'jepa-bench');
    const { stdout } = await run(process.execPath, [BENCH, 'fuzz-engine', '--replay', REGRESSIONS, '--json'], { maxBuffer: 1 << 24 });
    const rows = (JSON.parse(stdout) as { rows: Row[] }).rows;
    // the .gguf files, and the .json cases kept without theirs (forged again by the replay)
    const kept = replayNames(REGRESSIONS);
    expect(kept.filter((n) => n.startsWith('hang-')).length).toBeGreaterThan(0);
    expect(rows.map((r) => r.file).sort()).toEqual(kept.sort());
    expect(kept.length).toBeGreaterThan(0);
    for (const r of rows) {
      const { expect: want } = JSON.parse(readFileSync(join(REGRESSIONS, r.file.replace(/\.gguf$/, '.json')), 'utf8')) as {
        expect: Row['outcome'];
      };
      expect({ file: r.file, ...r.outcome }).toMatchObject({ file: r.file, ...want });
    }
  }, 120_000);

  it('a fixed-seed campaign of 1500 cases has no finding and runs files through every operation', async () => {
    requireBuilt(BENCH, 'jepa-bench');
    const out = mkdtempSync(join(tmpdir(), 'jepa-fuzz-engine-test-'));
    const r = await run(process.execPath, [BENCH, 'fuzz-engine', '--seconds', '300', '--inputs', '1500', '--seed', '11', '--out', out, '--json'], {
      maxBuffer: 1 << 24,
    }).catch((e: { stdout: string; stderr: string; code: number }) => e);
    const stats = (JSON.parse(r.stdout) as { stats: { inputs: number; findings: unknown[]; ran: number; ops: Record<string, number> } }).stats;
    expect(stats.findings, r.stderr).toEqual([]);
    expect(stats.inputs).toBe(1500);
    expect(stats.ran).toBeGreaterThan(0);
    expect(Object.keys(stats.ops)).toEqual(expect.arrayContaining(['encode', 'pool', 'classify', 'predict']));
  }, 300_000);
});

describe('the harness sees what a child does (negative controls)', () => {
  const cases = [
    { selfTest: 'abort', kind: 'crash', detail: /SIGABRT/ },
    { selfTest: 'hang', kind: 'hang', detail: /no answer within 3000 ms/ },
    { selfTest: 'memory', kind: 'memory', detail: /past the 400 MiB budget/ },
    { selfTest: 'nan', kind: 'nan', detail: /is NaN/ },
    { selfTest: 'foreign-error', kind: 'error', detail: /^TypeError: self-test/ },
  ] as const;
  it.each(cases)(
    '$selfTest is a $kind finding, and the next file runs in a fresh child',
    async ({ selfTest, kind, detail }) => {
      const h = new EngineHarness({ childPath: requireBuilt(CHILD, 'the fuzz child'), timeoutMs: 3000, memoryMib: 400 });
      try {
        const o = await h.run({ path: '', selfTest });
        expect(o).toMatchObject({ status: 'finding', kind });
        expect(o.status === 'finding' && o.detail).toMatch(detail);
        const next = await h.run({ path: join(REGRESSIONS, readdirSync(REGRESSIONS).find((n) => n.endsWith('.gguf'))!) });
        expect(next).toMatchObject({ status: 'refused', stage: 'load', code: 'JEPA_RANGE' });
      } finally {
        h.close();
      }
    },
    60_000,
  );
});
