// /v1/classify, /v1/predict, /v1/worldmodel/{rollout,plan} and pool "lewm" against the CLI commands
// on the forged reference-heads models: the same inputs give the same bits (or the same printed digits).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { classifierLogits } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { f32, heads, jepa, png, post, sameBits, startServer, THREADS, tmp } from './helpers.js';

const dir = tmp('heads');
const model = (name: string) => {
  const p = join(dir, `${name}.gguf`);
  copyFileSync(join(heads, name, 'model.gguf'), p);
  return p;
};
const pooler = model('vjepa2_pooler');
const predictor = model('vjepa2_predictor');
const lewm = model('lewm');
const clip = join(dir, 'clip.npy');
writeFileSync(
  clip,
  encodeNpy(
    Float32Array.from({ length: 3 * 4 * 16 * 16 }, (_, i) => Math.sin(i * 0.7) * 1.5),
    [1, 3, 4, 16, 16],
  ),
);
const image = join(dir, 'a.png');
const goal = join(dir, 'goal.png');
writeFileSync(image, png(20, 18, 5));
writeFileSync(goal, png(18, 20, 6));
const b64 = (p: string) => readFileSync(p).toString('base64');
const t = ['-t', String(THREADS)];

let server: JepaServer;
beforeAll(async () => {
  server = await startServer({ models: [pooler, predictor, lewm] });
});
afterAll(async () => {
  await server?.close();
});

describe('/v1/classify', () => {
  it('equals jepa classify --json --logits on a tensor and on an image', async () => {
    for (const [item, args] of [
      [{ tensor: b64(clip) }, ['--input-npy', clip]],
      [{ image: b64(image) }, [image]],
    ] as const) {
      const logitsPath = join(dir, 'logits.npy');
      const cli = jepa('classify', '-m', pooler, ...args, '-k', '3', '--json', '--logits', logitsPath, ...t);
      expect(cli.code, cli.err).toBe(0);
      const r = await post(server, '/v1/classify', { model: 'vjepa2_pooler', input: [item], top_k: 3, logits: true });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const d = r.json.data[0];
      expect(d.object).toBe('classification');
      expect(d.top).toEqual(JSON.parse(cli.out).top);
      expect(sameBits(f32(d.logits), readNpy(logitsPath).data as Float32Array)).toBe(true);
    }
  });

  it('gives labels, and leaves logits out unless asked', async () => {
    const r = await post(server, '/v1/classify', { model: 'vjepa2_pooler', input: { tensor: b64(clip) } });
    expect(r.json.data[0].top).toHaveLength(5);
    expect(r.json.data[0].top[0].label).toMatch(/^class_/);
    expect(r.json.data[0].logits).toBeUndefined();
  });
});

describe('/v1/predict', () => {
  it('equals jepa predict -o on the same clip and ids', async () => {
    const out = join(dir, 'pred.npy');
    const cli = jepa('predict', '-m', predictor, '--input-npy', clip, '--context', '0:16', '--target', '16:20,25', '-o', out, ...t);
    expect(cli.code, cli.err).toBe(0);
    const r = await post(server, '/v1/predict', {
      model: 'vjepa2_predictor',
      input: { tensor: b64(clip) },
      context: '0:16',
      target: [16, 17, 18, 19, 25],
      encoding_format: 'base64',
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.shape).toEqual([5, 32]);
    expect(r.json.target_ids).toEqual([16, 17, 18, 19, 25]);
    expect(sameBits(f32(r.json.predictions), readNpy(out).data as Float32Array)).toBe(true);
  });
});

describe('/v1/worldmodel', () => {
  it('rollout of random actions with a goal equals jepa worldmodel --random-actions --goal', async () => {
    const out = join(dir, 'roll.npy');
    const cli = jepa('worldmodel', '-m', lewm, '--image', image, '--random-actions', '3', '--goal', goal, '--seed', '4', '-o', out, ...t);
    expect(cli.code, cli.err).toBe(0);
    const r = await post(server, '/v1/worldmodel/rollout', {
      model: 'lewm',
      images: [{ image: b64(image) }],
      random_actions: 3,
      seed: 4,
      goal: { image: b64(goal) },
      encoding_format: 'base64',
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.shape).toEqual([3, 6, 32]);
    expect(sameBits(f32(r.json.rollout), readNpy(out).data as Float32Array)).toBe(true);
    expect(r.json.costs.map((c: number, k: number) => `candidate ${k}: cost ${c.toFixed(6)}`).join('\n')).toBe(cli.out.trim());
  });

  it('rollout of given raw actions with statistics equals the CLI, history frames included', async () => {
    const rows = Array.from({ length: 4 }, (_, s) => Array.from({ length: 10 }, (_, a) => Math.round(100 * Math.cos(s * 10 + a)) / 100));
    const mean = Array.from({ length: 10 }, (_, a) => a / 10);
    const std = Array.from({ length: 10 }, (_, a) => 1 + a / 5);
    const out = join(dir, 'roll2.npy');
    const cli = jepa(
      'worldmodel',
      '-m',
      lewm,
      '--image',
      image,
      goal,
      '--actions',
      rows.map((r) => r.join(',')).join(';'),
      '--action-mean',
      mean.join(','),
      '--action-std',
      std.join(','),
      '-o',
      out,
      ...t,
    );
    expect(cli.code, cli.err).toBe(0);
    const r = await post(server, '/v1/worldmodel/rollout', {
      model: 'lewm',
      images: [{ image: b64(image) }, { image: b64(goal) }],
      actions: rows,
      action_mean: mean,
      action_std: std,
      encoding_format: 'base64',
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.history).toBe(2);
    expect(sameBits(f32(r.json.rollout), readNpy(out).data as Float32Array)).toBe(true);
  });

  it('plan equals jepa worldmodel --plan, digit for digit', async () => {
    const args = ['--samples', '20', '--iterations', '2', '--topk', '4', '--seed', '3'];
    const mean = [0, 0, 0, 0, 0, 0, 0, 0, 0, 5];
    const std = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0.5];
    const cli = jepa(
      'worldmodel',
      '-m',
      lewm,
      '--image',
      image,
      '--plan',
      '--goal',
      goal,
      ...args,
      '--action-mean',
      mean.join(','),
      '--action-std',
      std.join(','),
      ...t,
    );
    expect(cli.code, cli.err).toBe(0);
    const body = {
      model: 'lewm',
      images: [{ image: b64(image) }],
      goal: { image: b64(goal) },
      samples: 20,
      iterations: 2,
      top_k: 4,
      seed: 3,
      action_mean: mean,
      action_std: std,
    };
    const r = await post(server, '/v1/worldmodel/plan', body);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.space).toBe('raw');
    expect(r.json.best_costs).toHaveLength(2);
    const lines = (r.json.actions as number[][]).map((row) => row.map((v) => v.toFixed(5)).join(','));
    expect(lines.join('\n')).toBe(cli.out.trim());
    expect((await post(server, '/v1/worldmodel/plan', body)).json.actions).toEqual(r.json.actions);
  });

  it('pool "lewm" equals jepa embed --pool lewm of the same images', async () => {
    const out = join(dir, 'state.npy');
    expect(jepa('embed', '-m', lewm, image, goal, '--pool', 'lewm', '-o', out, ...t).code).toBe(0);
    const r = await post(server, '/v1/embeddings', {
      model: 'lewm',
      input: [{ image: b64(image) }, { image: b64(goal) }],
      pool: 'lewm',
      encoding_format: 'base64',
    });
    expect(r.status).toBe(200);
    const states = readNpy(out).data as Float32Array;
    expect(sameBits(f32(r.json.data[0].embedding), states.subarray(0, 32))).toBe(true);
    expect(sameBits(f32(r.json.data[1].embedding), states.subarray(32, 64))).toBe(true);
  });

  it('pool "pooler" equals jepa embed --pool pooler, and head.cls on it gives /v1/classify\'s logits', async () => {
    const out = join(dir, 'pooled.npy');
    expect(jepa('embed', '-m', pooler, '--input-npy', clip, '--pool', 'pooler', '-o', out, ...t).code).toBe(0);
    const r = await post(server, '/v1/embeddings', {
      model: 'vjepa2_pooler',
      input: { tensor: b64(clip) },
      pool: 'pooler',
      encoding_format: 'base64',
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const pooled = f32(r.json.data[0].embedding);
    expect(sameBits(pooled, readNpy(out).data as Float32Array)).toBe(true);
    const c = await post(server, '/v1/classify', { model: 'vjepa2_pooler', input: { tensor: b64(clip) }, logits: true });
    const logits = f32(c.json.data[0].logits);
    const mine = classifierLogits(pooler, loadModelSpec(pooler).tensors, pooled);
    for (const [i, v] of mine.entries()) expect(Math.abs(v - logits[i]!)).toBeLessThan(1e-4 * Math.max(1, Math.abs(logits[i]!)));
    const refused = await post(server, '/v1/embeddings', { model: 'vjepa2_predictor', input: { tensor: b64(clip) }, pool: 'pooler' });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/"pooler" needs a classifier head/);
  });
});
