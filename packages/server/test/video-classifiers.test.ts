// VideoMAE and ViViT through the server, as any model is: converted by `jepa convert` from their HF
// folders (fixtures/reference/videomae, vivit), listed with the classify endpoint, and /v1/classify on raw
// THWC frames equal to `jepa classify` on the same file, with the Kinetics labels of their id2label.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readNpy } from '@jepa/preprocess';
import { REFERENCE } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { f32, get, jepa, post, sameBits, startServer, THREADS, tmp } from './helpers.js';

const dir = tmp('video-cls');
const FAMILIES = ['videomae', 'vivit'] as const;
const KINETICS = ['abseiling', 'air drumming', 'answering questions', 'applauding', 'applying cream'];
const model = (family: string) => join(dir, `${family}.gguf`);
const frames = (family: string) => join(REFERENCE, family, 'frames.npy');

let server: JepaServer;
beforeAll(async () => {
  for (const f of FAMILIES) {
    const r = jepa('convert', join(REFERENCE, f), '-o', model(f));
    expect(r.code, r.err).toBe(0);
  }
  server = await startServer({ models: FAMILIES.map(model) });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe('video classifiers on the server', () => {
  it('lists both with their family, frames and the classify endpoint', async () => {
    const r = await get(server, '/v1/models');
    for (const f of FAMILIES) {
      const card = r.json.data.find((m: { id: string }) => m.id === f);
      expect(card).toMatchObject({ family: f, frames: 4 });
      expect(card.endpoints).toContain('/v1/classify');
    }
  });

  it.each(FAMILIES)('%s: /v1/classify on THWC frames equals jepa classify, with the Kinetics labels', async (f) => {
    const logitsPath = join(dir, `${f}-logits.npy`);
    const cli = jepa('classify', '-m', model(f), '--frames-npy', frames(f), '-k', '5', '--json', '--logits', logitsPath, '-t', String(THREADS));
    expect(cli.code, cli.err).toBe(0);
    const item = { frames: readFileSync(frames(f)).toString('base64') };
    const r = await post(server, '/v1/classify', { model: f, input: [item], top_k: 5, logits: true });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const d = r.json.data[0];
    expect(d.top).toEqual(JSON.parse(cli.out).top);
    expect(d.top.map((t: { label: string }) => t.label).sort()).toEqual([...KINETICS].sort());
    expect(sameBits(f32(d.logits), readNpy(logitsPath).data as Float32Array)).toBe(true);
  });
});
