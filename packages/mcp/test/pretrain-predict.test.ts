// predict_latents on an I-JEPA file converted from Meta's pretraining .pth.tar (fixtures/reference/ijepa_pred):
// the cosines of the predictions to the encoder's own tokens equal the float64 goldens', and an input off
// the trained size is refused in one line.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cosine } from '@jepa/graph';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, type McpChild, mcpChild, root } from './helpers.js';

const fixture = join(root, 'fixtures/reference/ijepa_pred');
const m = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as {
  hparams: { n_head: number };
  context_ids: number[];
  target_ids: number[];
};
const dir = mkdtempSync(join(tmpdir(), 'jepa-mcp-pretrain-'));
const allowed = join(dir, 'allowed');
const models = join(dir, 'models');
mkdirSync(allowed);
mkdirSync(models);
copyFileSync(join(fixture, 'input.npy'), join(allowed, 'image.npy'));
writeFileSync(join(allowed, 'big.npy'), encodeNpy(new Float32Array(3 * 112 * 112).fill(0.25), [1, 3, 112, 112]));
const converted = spawnSync(
  process.execPath,
  [cli, 'convert', join(fixture, 'ijepa_pred_fixture.pth.tar'), '-o', join(models, 'ijepa.gguf'), '--n-head', String(m.hparams.n_head)],
  { encoding: 'utf8' },
);

let mcp: McpChild;
beforeAll(async () => {
  mcp = await mcpChild(['--models-dir', models, '--root', allowed]);
});
afterAll(async () => {
  await mcp?.close();
});

describe('predict_latents with the I-JEPA pretraining predictor', () => {
  it('scores the predictions against the encoder tokens, as the goldens do', async () => {
    expect(converted.status, converted.stderr).toBe(0);
    const r = await mcp.ok<{ cosines: number[]; dims: number; target_ids: number[] }>('predict_latents', {
      model: 'ijepa',
      media: { path: join(allowed, 'image.npy'), kind: 'tensor' },
      context: m.context_ids,
      target: m.target_ids,
    });
    const targets = readNpy(readFileSync(join(fixture, 'targets_from_input.npy'))).data as Float32Array;
    const tokens = readNpy(readFileSync(join(fixture, 'tokens.npy'))).data as Float32Array;
    const dim = r.dims;
    expect(r.target_ids).toEqual(m.target_ids);
    m.target_ids.forEach((id, i) => {
      expect(r.cosines[i]).toBeCloseTo(cosine(targets.subarray(i * dim, (i + 1) * dim), tokens.subarray(id * dim, (id + 1) * dim)), 5);
    });
  });

  it('refuses an input off the trained size', async () => {
    const text = await mcp.refused('predict_latents', {
      model: 'ijepa',
      media: { path: join(allowed, 'big.npy'), kind: 'tensor' },
      context: [0],
      target: [1],
    });
    expect(text).toMatch(/trained 56x56 input .*not 112x112/);
  });
});
