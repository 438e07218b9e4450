// `jepa convert` then `jepa predict` on a V-JEPA 2.1 g/G-style .pt (predictor reading the encoder's 4
// hierarchy levels, fixtures/reference/vjepa2_1_hier): the predictions equal the float64 golden.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareTokens, judge, policyRow } from '@jepa/graph';
import { readNpy } from '@jepa/preprocess';
import { runCli, VJEPA2_1_HIER } from '@jepa/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const fixture = VJEPA2_1_HIER;
const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-hier-'));
const m = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as {
  checkpoint: string[];
  hparams: { n_head: number };
  convert_overrides: { img_size: number; pred_n_head: number };
  context_ids_values: number[];
  target_ids_values: number[];
};
const gguf = join(tmp, 'hier.gguf');

function jepa(...args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  const c = jepa(
    'convert',
    join(fixture, m.checkpoint[0]!),
    '-o',
    gguf,
    '--n-head',
    String(m.hparams.n_head),
    '--pred-n-head',
    String(m.convert_overrides.pred_n_head),
    '--img-size',
    String(m.convert_overrides.img_size),
  );
  expect(c.code).toBe(0);
  expect(c.err).toMatch(/entry 'target_encoder'/);
});

describe('jepa predict on a V-JEPA 2.1 predictor with n_output_distillation 4', () => {
  it('runs the encoder in hierarchy mode and matches the float64 golden (cpu/video/f32)', () => {
    const out = join(tmp, 'pred.npy');
    const r = jepa(
      'predict',
      '-m',
      gguf,
      '--input-npy',
      join(fixture, 'input.npy'),
      '--context',
      m.context_ids_values.join(','),
      '--target',
      m.target_ids_values.join(','),
      '-o',
      out,
      '-t',
      '2',
    );
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/11 context -> 7 target tokens of width 128/);
    const got = readNpy(readFileSync(out));
    expect(got.shape).toEqual([7, 128]);
    const want = readNpy(readFileSync(join(fixture, 'targets.npy')));
    const v = judge(policyRow('cpu', 'video', 'f32'), compareTokens(got.data as Float32Array, want.data as Float32Array, 128));
    console.log(`jepa predict vjepa2_1_hier: ${v.summary}`);
    expect(v.failures).toEqual([]);
  });
});
