// /v1/predict on I-JEPA and V-JEPA (v1) files converted from Meta's pretraining .pth.tar (predictor
// included): the same bits as `jepa predict -o`, and the float64 golden's values.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareTokens, judge, policyRow, type FamilyClass } from '@jepa/graph';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { f32, jepa, post, root, sameBits, startServer, THREADS, tmp } from './helpers.js';

const dir = tmp('pretrain-pred');
const CASES: { name: 'ijepa_pred' | 'vjepa_pred'; cls: FamilyClass; extra: string[] }[] = [
  { name: 'ijepa_pred', cls: 'image', extra: [] },
  // the predictor was trained on the `encoder` entry's context features
  { name: 'vjepa_pred', cls: 'video', extra: ['--entry', 'encoder'] },
];
const fixture = (name: string, file: string) => join(root, 'fixtures/reference', name, file);
const manifest = (name: string) =>
  JSON.parse(readFileSync(fixture(name, 'manifest.json'), 'utf8')) as { hparams: { n_head: number }; context_ids: number[]; target_ids: number[] };

let server: JepaServer;
beforeAll(async () => {
  for (const c of CASES) {
    const r = jepa(
      'convert',
      fixture(c.name, `${c.name}_fixture.pth.tar`),
      '-o',
      join(dir, `${c.name}.gguf`),
      '--n-head',
      String(manifest(c.name).hparams.n_head),
      ...c.extra,
    );
    expect(r.code, r.err).toBe(0);
  }
  server = await startServer({ models: CASES.map((c) => join(dir, `${c.name}.gguf`)) });
});
afterAll(async () => {
  await server?.close();
});

describe.each(CASES)('/v1/predict $name', (c) => {
  it('equals jepa predict -o and passes the golden', async () => {
    const m = manifest(c.name);
    const input = fixture(c.name, 'input.npy');
    const out = join(dir, `${c.name}-pred.npy`);
    const ids = ['--context', m.context_ids.join(','), '--target', m.target_ids.join(',')];
    const cli = jepa('predict', '-m', join(dir, `${c.name}.gguf`), '--input-npy', input, ...ids, '-o', out, '-t', String(THREADS));
    expect(cli.code, cli.err).toBe(0);
    const r = await post(server, '/v1/predict', {
      model: c.name,
      input: { tensor: readFileSync(input).toString('base64') },
      context: m.context_ids,
      target: m.target_ids,
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.shape).toEqual(readNpy(out).shape);
    const got = f32((r.json.predictions as number[][]).flat());
    const cliOut = readNpy(out).data as Float32Array;
    expect(sameBits(got, cliOut)).toBe(true);
    const golden = readNpy(fixture(c.name, 'targets_from_input.npy')).data as Float32Array;
    const v = judge(policyRow('cpu', c.cls, 'f32'), compareTokens(got, golden, r.json.shape[1]));
    console.log(`/v1/predict ${c.name}: ${v.summary}`);
    expect(v.failures).toEqual([]);
  });
});

describe('/v1/predict refusals', () => {
  it('refuses a tensor off the trained size with a 400 naming it', async () => {
    const big = Buffer.from(encodeNpy(new Float32Array(3 * 112 * 112).fill(0.25), [1, 3, 112, 112])).toString('base64');
    const r = await post(server, '/v1/predict', { model: 'ijepa_pred', input: { tensor: big }, context: [0, 1], target: [2] });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toMatch(/trained 56x56 input .*not 112x112/);
  });
});
