// A request's `size` (DINOv3 at any grid): /v1/embeddings, /v1/features and /v1/classify resize every
// input straight to it, as `jepa embed --size` does, so the server gives the CLI's bits; a size out of
// bounds is refused in one line naming the field.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readNpy } from '@jepa/preprocess';
import { REFERENCE } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { f32, jepa, post, sameBits, startServer, sampleJpg, tmp } from './helpers.js';

const dir = tmp('size');
const model = join(dir, 'dinov3.gguf');
const image = { image: readFileSync(sampleJpg).toString('base64') };
let server: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  const r = jepa('convert', join(REFERENCE, 'dinov3_hf'), '-o', model);
  expect(r.code, r.err).toBe(0);
  server = await startServer({ models: [model], threads: 2 });
});
afterAll(() => server?.close());

const embedding = async (extra: Record<string, unknown>) => {
  const r = await post(server, '/v1/embeddings', { input: [image], pool: 'cls+mean', encoding_format: 'base64', ...extra });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return f32(r.json.data[0].embedding);
};

describe('size on a request', () => {
  it("embeds at [height, width] the bits of jepa embed --size, and at the recipe's size another vector", async () => {
    const cli = join(dir, 'cli.npy');
    const r = jepa('embed', '-m', model, sampleJpg, '--size', '48x80', '--pool', 'cls+mean', '-t', '2', '-o', cli);
    expect(r.code, r.err).toBe(0);
    const expected = readNpy(cli).data as Float32Array;
    expect(sameBits(await embedding({ size: [48, 80] }), expected)).toBe(true);
    // negative control: the recipe's 64 px square is another input
    expect(sameBits(await embedding({}), expected)).toBe(false);
    // one number is a square
    expect(sameBits(await embedding({ size: 64 }), await embedding({}))).toBe(true);
  });

  it('maps the patch grid of the size with /v1/features', async () => {
    const r = await post(server, '/v1/features', { input: [image], size: [96, 160] });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect([r.json.data[0].grid.h, r.json.data[0].grid.w]).toEqual([6, 10]);
  });

  it.each([0, -1, 9000, 1.5, [48], [48, 80, 3], '48x80'])('refuses size %j in one line naming the field', async (size) => {
    const r = await post(server, '/v1/embeddings', { input: [image], size });
    expect(r.status).toBe(400);
    expect(r.json.error.param).toBe('size');
    expect(r.json.error.type).toBe('invalid_request_error');
  });
});
