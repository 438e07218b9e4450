// The GPU checks (gpu/checks.ts) under vitest on the first GPU: every reference fixture at f32, f16
// and q8_0 against the GPU rows of the parity policy, batching against one by one, disposal with
// work in flight, the heads, the masked and LeWM predictors, the refusal by name, and a negative
// control. Skips without a GPU build and device; scripts/gpu-check.sh runs the same checks on the
// GPU machine without vitest.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devices } from '@jepa/native';
import { describe, it } from 'vitest';
import { gpuChecks } from '../gpu/checks.js';

const hasGpu = devices().some((d) => d.type === 'gpu');

describe.skipIf(!hasGpu)('on the GPU', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'jepa-gpu-checks-'));
  for (const check of gpuChecks(tmp))
    it(check.name, async () => {
      console.log(`${check.name}: ${await check.run('cuda:0')}`);
    });
});
