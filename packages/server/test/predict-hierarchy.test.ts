// /v1/predict on a V-JEPA 2.1 g/G-style model (predictor reading the encoder's 4 hierarchy levels,
// fixtures/reference/vjepa2_1_hier): the predictions pass against the float64 golden, and the shared
// encoder still answers /v1/embeddings with the final output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareTokens, judge, policyRow } from '@jepa/graph';
import { readNpy } from '@jepa/preprocess';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { f32, jepa, post, root, startServer, tmp } from './helpers.js';

const fixture = join(root, 'fixtures/reference/vjepa2_1_hier');
const m = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as {
  checkpoint: string[];
  hparams: { n_head: number; embed_dim: number };
  convert_overrides: { img_size: number; pred_n_head: number };
  context_ids_values: number[];
  target_ids_values: number[];
};
const gguf = join(tmp('hier'), 'vjepa2_1_hier.gguf');
const clip = readFileSync(join(fixture, 'input.npy')).toString('base64');

let server: JepaServer;
beforeAll(async () => {
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
  expect(c.code, c.err).toBe(0);
  server = await startServer({ models: [gguf] });
});
afterAll(async () => {
  await server?.close();
});

describe('/v1/predict with a hierarchy-reading predictor', () => {
  it('matches the float64 golden (cpu/video/f32)', async () => {
    const r = await post(server, '/v1/predict', {
      model: 'vjepa2_1_hier',
      input: { tensor: clip },
      context: m.context_ids_values,
      target: m.target_ids_values,
      encoding_format: 'base64',
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.shape).toEqual([7, 4 * m.hparams.embed_dim]);
    const want = readNpy(readFileSync(join(fixture, 'targets.npy'))).data as Float32Array;
    const v = judge(policyRow('cpu', 'video', 'f32'), compareTokens(f32(r.json.predictions), want, 4 * m.hparams.embed_dim));
    console.log(`/v1/predict vjepa2_1_hier: ${v.summary}`);
    expect(v.failures).toEqual([]);
  });

  it('/v1/embeddings on the same model still gives the final output (D wide)', async () => {
    const r = await post(server, '/v1/embeddings', { model: 'vjepa2_1_hier', input: { tensor: clip } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data[0].embedding).toHaveLength(m.hparams.embed_dim);
    const tokens = readNpy(readFileSync(join(fixture, 'last_hidden_state.npy'))).data as Float32Array;
    const mean = new Float32Array(m.hparams.embed_dim);
    const n = tokens.length / m.hparams.embed_dim;
    for (let i = 0; i < tokens.length; i++) mean[i % m.hparams.embed_dim]! += tokens[i]! / n;
    const got = Float32Array.from(r.json.data[0].embedding as number[]);
    expect(judge(policyRow('cpu', 'video', 'f32'), compareTokens(got, mean, m.hparams.embed_dim)).failures).toEqual([]);
  });
});
