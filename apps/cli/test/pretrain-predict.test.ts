// jepa convert + jepa predict on Meta's I-JEPA pretraining checkpoint (fixtures/reference/ijepa_pred):
// the predictor entry comes along, predict runs on a preprocessed tensor and on an image, and the
// predictions written match the float64 golden.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareTokens, judge, policyRow } from '@jepa/graph';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { IJEPA_PRED, runCli, SAMPLE_JPG } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const fixture = IJEPA_PRED;
const image = SAMPLE_JPG;
const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-pretrain-pred-'));
const manifest = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as {
  hparams: { n_head: number };
  context_ids: number[];
  target_ids: number[];
};

function jepa(...args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('jepa predict on an I-JEPA .pth.tar', () => {
  const gguf = join(tmp, 'ijepa-pred.gguf');

  it('converts the encoder and the predictor entry', () => {
    const r = jepa('convert', join(fixture, 'ijepa_pred_fixture.pth.tar'), '-o', gguf, '--n-head', String(manifest.hparams.n_head));
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/ijepa from facebookresearch\/ijepa .*\(entry 'encoder'\)/);
    const info = jepa('info', gguf, '--json');
    expect(info.code).toBe(0);
    expect(info.out).toMatch(/"pos":\s*"table"/);
  });

  it('predicts the golden targets from the preprocessed input', () => {
    const out = join(tmp, 'pred.npy');
    const r = jepa(
      'predict',
      '-m',
      gguf,
      '--input-npy',
      join(fixture, 'input.npy'),
      '--context',
      manifest.context_ids.join(','),
      '--target',
      manifest.target_ids.join(','),
      '-o',
      out,
      '-t',
      '2',
    );
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/10 context -> 6 target tokens of width 48/);
    const got = readNpy(out);
    expect(got.shape).toEqual([6, 48]);
    const golden = readNpy(join(fixture, 'targets_from_input.npy')).data as Float32Array;
    const v = judge(policyRow('cpu', 'image', 'f32'), compareTokens(got.data as Float32Array, golden, 48));
    console.log(`jepa predict ijepa_pred: ${v.summary}`);
    expect(v.failures).toEqual([]);
  });

  it("--context-only encodes the context tokens alone (Meta's training path) and matches that golden", () => {
    const out = join(tmp, 'pred-context-only.npy');
    const ids = ['--context', manifest.context_ids.join(','), '--target', manifest.target_ids.join(',')];
    const r = jepa('predict', '-m', gguf, '--input-npy', join(fixture, 'input.npy'), ...ids, '--context-only', '-o', out, '-t', '2');
    expect(r.code, r.err).toBe(0);
    const golden = readNpy(join(fixture, 'targets_masked_encoder.npy')).data as Float32Array;
    const v = judge(policyRow('cpu', 'image', 'f32'), compareTokens(readNpy(out).data as Float32Array, golden, 48));
    console.log(`jepa predict --context-only ijepa_pred: ${v.summary}`);
    expect(v.failures).toEqual([]);
  });

  it('runs on an image file and refuses ids off the 4x4 grid in one line', () => {
    const r = jepa('predict', '-m', gguf, image, '--context', '0:8', '--target', '8:16', '-t', '2');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { shape: number[]; predictions: number[] };
    expect(j.shape).toEqual([8, 48]);
    expect(j.predictions.every(Number.isFinite)).toBe(true);
    const bad = jepa('predict', '-m', gguf, image, '--context', '0:8', '--target', '16');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/^jepa: .*target token id 16 is off the predictor grid/);
  });

  it('refuses an input off the trained size: the table is not resized', () => {
    const big = join(tmp, 'big.npy');
    writeFileSync(big, encodeNpy(new Float32Array(3 * 112 * 112).fill(0.25), [1, 3, 112, 112]));
    const r = jepa('predict', '-m', gguf, '--input-npy', big, '--context', '0:8', '--target', '8:16');
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/^jepa: the predictor's positions are those of the trained 56x56 input .*not 112x112/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
});
