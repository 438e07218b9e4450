// A short soak through the real `jepa serve`: every route answered, the faults sent, the samples read
// from the server's /proc and /metrics, and SIGTERM answering the work in flight. The 30-minute run
// and its figures are in docs/hardening.md.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { runSoak } from '../src/soak/soak-bench.js';

const dir = mkdtempSync(join(tmpdir(), 'jepa-soak-test-'));
const cli = resolve(import.meta.dirname, '../../cli/dist/main.js');

describe('jepa-bench soak', () => {
  it('serves every route under faults for 12 s, samples memory a quarter in, and shuts down with nothing dropped', async () => {
    const model = forgeModel('vjepa2', { path: join(dir, 'soak.gguf') }).path;
    const report = await runSoak(
      {
        cli,
        model,
        seconds: 12,
        clients: 3,
        maxQueue: 4,
        slowClients: 4,
        threads: 1,
        // the suite shares the machine: latency and memory bounds belong to the long run
        healthP99Ms: 30_000,
        rssGrowthMib: 4096,
        fdGrowth: 16,
        slowCloseS: 30,
      },
      () => {},
    );
    expect(report.violations).toEqual([]);
    for (const route of ['embed image', 'embed clip', 'embed batch', 'features', 'classify', 'predict'])
      expect(report.routes[route]?.ok, route).toBeGreaterThan(0);
    expect(report.statuses['500']).toBeUndefined();
    expect(report.errorCodes['400 invalid_json']).toBeGreaterThan(0);
    expect(report.faults['disconnect mid-request']).toBeGreaterThan(0);
    expect(report.faults.burst).toBeGreaterThan(0);
    expect(report.samples.map((s) => s.at)).toEqual(['start', 'warm', 'middle', 'end']);
    for (const s of report.samples) {
      expect(s.rssMib).toBeGreaterThan(20);
      expect(s.heapMib).toBeGreaterThan(1);
      expect(s.newSpaceMib).toBeGreaterThan(0);
      expect(s.heapMib).toBeLessThan(s.rssMib);
      expect(s.externalMib).toBeGreaterThan(0);
    }
    expect(report.shutdown.exitCode).toBe(0);
    expect(report.shutdown.answered['connection error']).toBeUndefined();
  }, 90_000);
});
