// jepa classify, predict and worldmodel as a user meets them, on the forged reference-heads models:
// outputs agree with the library, files have the documented shapes, refusals are one-line errors.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EncodeOutput, Model } from '@jepa/graph';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { REFERENCE_HEADS, runCli, SAMPLE_JPG } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const heads = REFERENCE_HEADS;
const image = SAMPLE_JPG;
const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-heads-'));

function jepa(...args: string[]) {
  const r = runCli([...args, '-t', '2'], { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// a preprocessed clip [1, 3, 4, 16, 16]: 2 x 4 x 4 tokens on a 4-wide grid, the predictors' grid
const clip = join(tmp, 'clip.npy');
writeFileSync(
  clip,
  encodeNpy(
    Float32Array.from({ length: 3 * 4 * 16 * 16 }, (_, i) => Math.sin(i * 0.7) * 1.5),
    [1, 3, 4, 16, 16],
  ),
);

describe('jepa classify', () => {
  it('prints the top k with labels, and --logits equals the library on the same tensor', async () => {
    const model = join(heads, 'vjepa2_pooler/model.gguf');
    const logitsPath = join(tmp, 'logits.npy');
    const r = jepa('classify', '-m', model, '--input-npy', clip, '-k', '3', '--json', '--logits', logitsPath);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { top: { label: string; index: number; prob: number }[] };
    expect(j.top).toHaveLength(3);
    expect(j.top[0]!.label).toMatch(/^class_/);
    const logits = readNpy(logitsPath);
    expect(logits.shape).toEqual([1, 10]);
    const m = await Model.load(model, { threads: 2 });
    const npy = readNpy(clip);
    const tokens = await m.createContext().encode({ data: npy.data as Float32Array, shape: npy.shape });
    const [lib] = await m.createHeadContext().logits(new EncodeOutput(tokens.tokens, 1, tokens.nTokens, tokens.dim, 0, 0));
    expect(Array.from(logits.data as Float32Array)).toEqual(Array.from(lib!));
    m.dispose();
  });

  it('refuses a model without a head', () => {
    const r = jepa('classify', '-m', join(heads, 'lewm/model.gguf'), image);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/^jepa: .*has no classifier head\n$/);
  });
});

describe('jepa predict', () => {
  it('writes [targets, out_dim] and names off-grid ids', () => {
    const out = join(tmp, 'pred.npy');
    const r = jepa(
      'predict',
      '-m',
      join(heads, 'vjepa2_predictor/model.gguf'),
      '--input-npy',
      clip,
      '--context',
      '0:16',
      '--target',
      '16:20,25',
      '-o',
      out,
    );
    expect(r.code).toBe(0);
    expect(readNpy(out).shape).toEqual([5, 32]);
    const bad = jepa('predict', '-m', join(heads, 'vjepa2_predictor/model.gguf'), '--input-npy', clip, '--context', '0:16', '--target', '40');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/target token id 40 is off the predictor grid/);
  });
});

describe('jepa worldmodel', () => {
  const model = join(heads, 'lewm/model.gguf');

  it('rolls random candidates out and scores them against a goal', () => {
    const out = join(tmp, 'roll.npy');
    const r = jepa('worldmodel', '-m', model, '--image', image, '--random-actions', '3', '--goal', image, '-o', out);
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(3);
    expect(readNpy(out).shape).toEqual([3, 6, 32]);
  });

  it('plans reproducibly from a seed and returns raw actions with the statistics', () => {
    const args = [
      'worldmodel',
      '-m',
      model,
      '--image',
      image,
      '--plan',
      '--goal',
      image,
      '--samples',
      '20',
      '--iterations',
      '2',
      '--topk',
      '4',
      '--seed',
      '3',
      '--action-mean',
      '0,0,0,0,0,0,0,0,0,5',
      '--action-std',
      '1,1,1,1,1,1,1,1,1,0.5',
    ];
    const a = jepa(...args);
    const b = jepa(...args);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    expect(a.out.trim().split('\n')).toHaveLength(5);
  });

  it('refuses actions of the wrong width', () => {
    const r = jepa('worldmodel', '-m', model, '--image', image, '--actions', '1,2');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/every step needs 10 values/);
  });
});
