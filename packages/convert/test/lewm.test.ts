// LeWM: the BatchNorm fold reproduces the fixture's projector output, and a file with the world-model
// parts converts into a lewm model the schema and the loader accept.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { Model } from '@jepa/graph';
import { describe, expect, it } from 'vitest';
import { foldBatchNorm } from '../src/mappings/batchnorm-fold.js';
import { convertCheckpoint, detectFamily } from '../src/index.js';
import { tempDir } from './fixtures.js';
import { npy, REFERENCE } from '@jepa/testing';
import { seeded, tensorsOf, writeSafetensors, type RawTensor } from './synthetic-checkpoint.js';

/** erf by Abramowitz–Stegun 7.1.26 (|error| < 1.5e-7), enough for a 1e-5 comparison. */
function erf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}

function linear(x: Float32Array, w: Float32Array, b: Float32Array): Float64Array {
  const out = new Float64Array(b.length);
  const n = x.length;
  for (let o = 0; o < b.length; o++) {
    let acc = b[o]!;
    for (let i = 0; i < n; i++) acc += w[o * n + i]! * x[i]!;
    out[o] = acc;
  }
  return out;
}

describe('LeWM', () => {
  it('projector(CLS) with the folded BatchNorm equals the reference projected.npy', async () => {
    const t = await tensorsOf(join(REFERENCE, 'lewm', 'weights.pt'));
    const get = (n: string) => t.get(n)!.data;
    const folded = foldBatchNorm(
      get('projector.net.0.weight'),
      get('projector.net.0.bias'),
      get('projector.net.1.weight'),
      get('projector.net.1.bias'),
      get('projector.net.1.running_mean'),
      get('projector.net.1.running_var'),
    );
    const hidden = linear(npy('lewm', 'pooled.npy').data, folded.weight, folded.bias).map((v) => 0.5 * v * (1 + erf(v / Math.SQRT2)));
    const projected = linear(Float32Array.from(hidden), get('projector.net.3.weight'), get('projector.net.3.bias'));
    const expected = npy('lewm', 'projected.npy').data;
    const worst = Math.max(...[...projected].map((v, i) => Math.abs(v - expected[i]!)));
    expect(worst).toBeLessThan(1e-5);
    // without the BatchNorm the same MLP is far off: the fold is doing the work
    const plainHidden = linear(npy('lewm', 'pooled.npy').data, get('projector.net.0.weight'), get('projector.net.0.bias')).map(
      (v) => 0.5 * v * (1 + erf(v / Math.SQRT2)),
    );
    const plain = linear(Float32Array.from(plainHidden), get('projector.net.3.weight'), get('projector.net.3.bias'));
    expect(Math.max(...[...plain].map((v, i) => Math.abs(v - expected[i]!)))).toBeGreaterThan(1e-2);
  });

  it('converts a file with predictor, action encoder and pred_proj into a lewm model', async () => {
    const dir = join(tempDir(), 'lewm-full');
    mkdirSync(dir);
    const tensors = new Map<string, RawTensor>(await tensorsOf(join(REFERENCE, 'lewm', 'weights.pt')));
    const D = 48;
    const hidden = 96;
    const inner = 2 * 16;
    let seed = 1;
    const add = (name: string, shape: number[], offset = 0) => tensors.set(name, seeded(shape, seed++, offset));
    add('predictor.pos_embedding', [1, 3, D]);
    for (let i = 0; i < 2; i++) {
      const p = `predictor.transformer.layers.${i}`;
      add(`${p}.adaLN_modulation.1.weight`, [6 * D, D]);
      add(`${p}.adaLN_modulation.1.bias`, [6 * D]);
      add(`${p}.attn.norm.weight`, [D], 1);
      add(`${p}.attn.norm.bias`, [D]);
      add(`${p}.attn.to_qkv.weight`, [3 * inner, D]);
      add(`${p}.attn.to_out.0.weight`, [D, inner]);
      add(`${p}.attn.to_out.0.bias`, [D]);
      add(`${p}.mlp.net.0.weight`, [D], 1);
      add(`${p}.mlp.net.0.bias`, [D]);
      add(`${p}.mlp.net.1.weight`, [64, D]);
      add(`${p}.mlp.net.1.bias`, [64]);
      add(`${p}.mlp.net.4.weight`, [D, 64]);
      add(`${p}.mlp.net.4.bias`, [D]);
    }
    add('predictor.transformer.norm.weight', [D], 1);
    add('predictor.transformer.norm.bias', [D]);
    add('action_encoder.patch_embed.weight', [10, 10, 1]);
    add('action_encoder.patch_embed.bias', [10]);
    add('action_encoder.embed.0.weight', [40, 10]);
    add('action_encoder.embed.0.bias', [40]);
    add('action_encoder.embed.2.weight', [D, 40]);
    add('action_encoder.embed.2.bias', [D]);
    for (const [n, shape, offset] of [
      ['net.0.weight', [hidden, D], 0],
      ['net.0.bias', [hidden], 0],
      ['net.1.weight', [hidden], 1],
      ['net.1.bias', [hidden], 0],
      ['net.1.running_mean', [hidden], 0],
      ['net.1.running_var', [hidden], 1],
      ['net.3.weight', [D, hidden], 0],
      ['net.3.bias', [D], 0],
    ] as const) {
      add(`pred_proj.${n}`, [...shape], offset);
    }
    writeSafetensors(join(dir, 'model.safetensors'), tensors);
    const config = JSON.parse(readFileSync(join(REFERENCE, 'lewm', 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, predictor: { heads: 2, dim_head: 16 } }));

    expect((await detectFamily(dir)).family).toBe('lewm');
    const out = join(tempDir(), 'lewm.gguf');
    const s = await convertCheckpoint(dir, out);
    expect(s.ignored).toEqual([]);
    const spec = loadModelSpec(out);
    expect(spec.family).toBe('lewm');
    expect(spec.pred).toMatchObject({
      kind: 'action',
      embedDim: D,
      nLayer: 2,
      nHead: 2,
      headDim: 16,
      nFrames: 3,
      actionDim: 10,
      actionHidden: 40,
      projHidden: hidden,
    });
    const model = await Model.load(out, { threads: 2 });
    model.dispose();
  });
});
