// predict_latents on a V-JEPA 2.1 g/G-style model (fixtures/reference/vjepa2_1_hier): the predictions
// (one per hierarchy level, 4·D wide) are scored against the encoder's hierarchy tokens, and the
// cosines equal those of the float64 goldens (targets.npy against hierarchy.npy at the target ids).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cosine } from '@jepa/graph';
import { readNpy } from '@jepa/preprocess';
import { describe, expect, it } from 'vitest';
import { cli, mcpBesideServer, root } from './helpers.js';

const fixture = join(root, 'fixtures/reference/vjepa2_1_hier');
const m = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as {
  checkpoint: string[];
  hparams: { n_head: number };
  convert_overrides: { img_size: number; pred_n_head: number };
  context_ids_values: number[];
  target_ids_values: number[];
};
const dir = mkdtempSync(join(tmpdir(), 'jepa-mcp-hier-'));
const allowed = join(dir, 'allowed');
const models = join(dir, 'models');
mkdirSync(allowed);
mkdirSync(models);
copyFileSync(join(fixture, 'input.npy'), join(allowed, 'clip.npy'));
const converted = spawnSync(
  process.execPath,
  [
    cli,
    'convert',
    join(fixture, m.checkpoint[0]!),
    '-o',
    join(models, 'hier.gguf'),
    '--n-head',
    String(m.hparams.n_head),
    '--pred-n-head',
    String(m.convert_overrides.pred_n_head),
    '--img-size',
    String(m.convert_overrides.img_size),
  ],
  { encoding: 'utf8' },
);

const { mcp } = mcpBesideServer(allowed, models);

describe('predict_latents with a hierarchy-reading predictor', () => {
  it('scores the 4-level predictions against the hierarchy tokens, as the goldens do', async () => {
    expect(converted.status, converted.stderr).toBe(0);
    const r = await mcp().ok<{ cosines: number[]; dims: number; target_ids: number[] }>('predict_latents', {
      model: 'hier',
      media: { path: join(allowed, 'clip.npy'), kind: 'tensor' },
      context: m.context_ids_values,
      target: m.target_ids_values,
    });
    const targets = readNpy(readFileSync(join(fixture, 'targets.npy')));
    const hier = readNpy(readFileSync(join(fixture, 'hierarchy.npy')));
    const dim = targets.shape[1]!;
    expect(r.dims).toBe(dim);
    expect(r.target_ids).toEqual(m.target_ids_values);
    const t = targets.data as Float32Array;
    const h = hier.data as Float32Array;
    m.target_ids_values.forEach((id, i) => {
      const want = cosine(t.subarray(i * dim, (i + 1) * dim), h.subarray(id * dim, (id + 1) * dim));
      expect(r.cosines[i]).toBeCloseTo(want, 5);
    });
  });
});
