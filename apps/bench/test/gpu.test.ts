// The GPU checks (gpu/checks.ts) under vitest on the first GPU: every reference fixture at f32, f16
// and q8_0 against the GPU rows of the parity policy, batching against one by one, disposal with
// work in flight, the heads, the masked and LeWM predictors, the refusal by name, and a negative
// control. Skips without a GPU build and device; scripts/gpu-check.sh runs the same checks on the
// GPU machine without vitest.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildInfo, devices } from '@jepa/native';
import { describe, expect, it } from 'vitest';
import { gpuChecks } from '../gpu/checks.js';

const hasGpu = devices().some((d) => d.type === 'gpu');

it('skips the GPU checks only where no CUDA build runs on an NVIDIA device', () => {
  const nvidia = existsSync('/dev/nvidiactl');
  expect(hasGpu, `CUDA build ${buildInfo().cuda}, /dev/nvidiactl ${nvidia ? 'present' : 'absent'}`).toBe(buildInfo().cuda && nvidia);
});

describe.skipIf(!hasGpu)('on the GPU', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'jepa-gpu-checks-'));
  for (const check of gpuChecks(tmp))
    it(check.name, async () => {
      console.log(`${check.name}: ${await check.run('cuda:0')}`);
    });
});
