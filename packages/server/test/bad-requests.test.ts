// A table of bad requests, each with the status it must get (and, for a 400, the field it must name).
// None may crash or hang the server: afterwards /health is 200 and a good request still works.
import { copyFileSync, mkdirSync, openSync, readSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { encodeNpy } from '@jepa/preprocess';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { type Answer, demo, get, heads, png, post, rawRequest, startServer, statusOf, tmp } from './helpers.js';

const dir = tmp('bad');
const allowed = join(dir, 'allowed');
const evil = join(dir, 'allowed_evil');
mkdirSync(allowed);
mkdirSync(evil);
writeFileSync(join(allowed, 'ok.png'), png(16, 16, 1));
writeFileSync(join(evil, 'secret.png'), png(16, 16, 2));
symlinkSync(join(evil, 'secret.png'), join(allowed, 'link.png'));
const still = forgeModel('hfvit', { path: join(dir, 'still.gguf') });
copyFileSync(join(heads, 'vjepa2_predictor/model.gguf'), join(dir, 'predictor.gguf'));
copyFileSync(join(heads, 'lewm/model.gguf'), join(dir, 'lewm.gguf'));

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const goodPng = b64(png(16, 16, 3));
const ggufHead = (() => {
  const fd = openSync(demo, 'r');
  const b = Buffer.alloc(4096);
  readSync(fd, b, 0, b.length, 0);
  return b;
})();
const npy = (data: Parameters<typeof encodeNpy>[0], shape: number[]) => b64(encodeNpy(data, shape));

let server: JepaServer;
let keyed: JepaServer;

beforeAll(async () => {
  server = await startServer({
    models: [still.path, demo, join(dir, 'predictor.gguf'), join(dir, 'lewm.gguf')],
    allowPaths: [allowed],
    maxQueue: 16,
    maxBodyMb: 1,
    timeoutMs: 10_000,
  });
  keyed = await startServer({ models: [still.path], apiKey: 'sesame' });
});
afterAll(async () => {
  await server?.close();
  await keyed?.close();
});

interface Case {
  name: string;
  status: number;
  /** The field the error names (param), for 400s about one field. */
  param?: string;
  message?: RegExp;
  send: () => Promise<Pick<Answer, 'status' | 'json'>>;
}

const embed = (body: unknown) => () => post(server, '/v1/embeddings', body);
const item = (i: object, model = 'still') => embed({ model, input: [i] });
const raw =
  (bytes: string, opts: { halfClose?: boolean } = {}) =>
  async () => {
    const text = await rawRequest(server, bytes, opts);
    const body = text.split('\r\n\r\n')[1] ?? '';
    let json: unknown = null;
    try {
      json = JSON.parse(body);
    } catch {
      // an empty or partial answer
    }
    return { status: statusOf(text), json };
  };
const head = (length: number | string, extra = '') =>
  `POST /v1/embeddings HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

const cases: Case[] = [
  { name: 'malformed JSON', status: 400, param: 'body', message: /not valid JSON/, send: embed('{"input": [') },
  { name: 'JSON that is not an object', status: 400, param: 'body', send: embed('[1, 2, 3]') },
  { name: 'an empty JSON body', status: 400, param: 'body', send: () => post(server, '/v1/embeddings', '') },
  {
    name: 'a JSON nesting bomb',
    status: 400,
    param: 'body',
    message: /nested deeper/,
    send: embed(`{"input": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`),
  },
  {
    name: 'no Content-Type',
    status: 415,
    send: async () => {
      const r = await fetch(`${server.url}/v1/embeddings`, { method: 'POST', body: new Uint8Array([1, 2]) });
      return { status: r.status, json: await r.json() };
    },
  },
  { name: 'text/plain', status: 415, send: () => post(server, '/v1/embeddings', '{}', { 'content-type': 'text/plain' }) },
  { name: 'a 1 GB Content-Length with a small body (raw socket)', status: 413, send: raw(`${head(2 ** 30)}{"input":[]}`) },
  { name: 'a body over --max-body-mb', status: 413, send: item({ image: 'A'.repeat(2 ** 21) }) },
  {
    name: 'a truncated body (raw socket, half-closed)',
    status: 400,
    message: /ended before Content-Length/,
    send: raw(`${head(500)}{"model":"still","input":[{"ima`, { halfClose: true }),
  },
  { name: 'headers over the limit (raw socket)', status: 431, send: raw(`${head(2, `X-Big: ${'a'.repeat(20_000)}\r\n`)}{}`) },
  { name: 'an unknown field', status: 400, param: 'inputs', send: embed({ model: 'still', inputs: [] }) },
  { name: 'no input', status: 400, param: 'input', send: embed({ model: 'still' }) },
  { name: 'an empty input list', status: 400, param: 'input', send: embed({ model: 'still', input: [] }) },
  {
    name: 'more items than the queue holds',
    status: 400,
    param: 'input',
    message: /at most 16/,
    send: embed({ model: 'still', input: Array(17).fill({ image: goodPng }) }),
  },
  {
    name: 'an item that is a string (words) to a model without a text side',
    status: 400,
    param: 'model',
    message: /^model: still \(hfvit\) has no text tower/,
    send: embed({ model: 'still', input: ['abc'] }),
  },
  { name: 'an item with two kinds', status: 400, param: 'input[0]', send: item({ image: goodPng, video: goodPng }) },
  { name: 'an item with an unknown kind', status: 400, param: 'input[0].url', send: item({ url: 'https://example.com/a.png' }) },
  { name: 'an image URL', status: 400, param: 'input[0].image', message: /URLs are not fetched/, send: item({ image: 'https://example.com/a.png' }) },
  { name: 'bad base64', status: 400, param: 'input[0].image', message: /not valid base64/, send: item({ image: 'iVBOR$w0KGgo=' }) },
  { name: 'a data: URI that is not base64', status: 400, param: 'input[0].image', send: item({ image: 'data:image/png,abc' }) },
  { name: 'an empty image', status: 400, param: 'input[0].image', send: item({ image: '' }) },
  {
    name: 'a base64 PNG that is really a GGUF',
    status: 400,
    param: 'input[0].image',
    send: item({ image: `data:image/png;base64,${b64(ggufHead)}` }),
  },
  { name: 'a truncated PNG', status: 400, param: 'input[0].image', send: item({ image: b64(png(64, 64, 4).subarray(0, 200)) }) },
  { name: 'a video ffmpeg rejects', status: 400, param: 'input[0].video', send: item({ video: b64(ggufHead) }, 'jepa-demo-vjepa2-untrained') },
  {
    name: 'frames that are float32',
    status: 400,
    param: 'input[0].frames',
    send: item({ frames: npy(new Float32Array(4 * 8 * 8 * 3), [4, 8, 8, 3]) }, 'jepa-demo-vjepa2-untrained'),
  },
  { name: 'a tensor that is not .npy', status: 400, param: 'input[0].tensor', send: item({ tensor: goodPng }) },
  {
    name: 'a tensor of uint8',
    status: 400,
    param: 'input[0].tensor',
    message: /float32/,
    send: item({ tensor: npy(new Uint8Array(3 * 8 * 8), [3, 8, 8]) }),
  },
  {
    name: 'a tensor with 4 channels',
    status: 400,
    param: 'input[0].tensor',
    message: /3 channels/,
    send: item({ tensor: npy(new Float32Array(4 * 8 * 8), [4, 8, 8]) }),
  },
  { name: 'a tensor of the wrong rank', status: 400, param: 'input[0].tensor', send: item({ tensor: npy(new Float32Array(64), [8, 8]) }) },
  {
    name: 'a tensor smaller than a patch',
    status: 400,
    param: 'input[0].tensor',
    message: /smaller than one/,
    send: item({ tensor: npy(new Float32Array(3 * 2 * 2), [3, 2, 2]) }),
  },
  {
    name: 'a tensor holding NaN',
    status: 400,
    param: 'input[0].tensor',
    message: /not finite/,
    send: item({ tensor: npy(new Float32Array(3 * 8 * 8).fill(Number.NaN), [3, 8, 8]) }),
  },
  {
    name: 'a one-frame tensor for a 2-frame tubelet',
    status: 400,
    param: 'input[0].tensor',
    message: /tubelets/,
    send: item({ tensor: npy(new Float32Array(3 * 16 * 16), [3, 16, 16]) }, 'jepa-demo-vjepa2-untrained'),
  },
  { name: "a path with '..'", status: 400, param: 'input[0].path', message: /\.\./, send: item({ path: `${allowed}/../allowed_evil/secret.png` }) },
  { name: 'a path through a symlink out of the root', status: 403, param: 'input[0].path', send: item({ path: join(allowed, 'link.png') }) },
  { name: 'a path in a sibling folder that shares the prefix', status: 403, param: 'input[0].path', send: item({ path: join(evil, 'secret.png') }) },
  { name: 'a path outside every root', status: 403, param: 'input[0].path', send: item({ path: '/etc/passwd' }) },
  { name: 'a path with a NUL byte', status: 400, param: 'input[0].path', send: item({ path: `${allowed}/ok.png\u0000.txt` }) },
  { name: 'a relative path', status: 400, param: 'input[0].path', send: item({ path: 'ok.png' }) },
  { name: 'a path to nothing', status: 400, param: 'input[0].path', send: item({ path: join(allowed, 'missing.png') }) },
  { name: 'an unknown model', status: 404, param: 'model', send: embed({ model: 'nope', input: [{ image: goodPng }] }) },
  { name: 'no model when several are loaded', status: 400, param: 'model', send: embed({ input: [{ image: goodPng }] }) },
  { name: 'a model that is not a string', status: 400, param: 'model', send: embed({ model: 7, input: [{ image: goodPng }] }) },
  { name: 'an unknown pool', status: 400, param: 'pool', send: embed({ model: 'still', input: [{ image: goodPng }], pool: 'max' }) },
  {
    name: 'CLS pooling on a model without CLS',
    status: 400,
    param: 'pool',
    send: embed({ model: 'jepa-demo-vjepa2-untrained', input: [{ image: goodPng }], pool: 'cls' }),
  },
  {
    name: 'an unknown encoding_format',
    status: 400,
    param: 'encoding_format',
    send: embed({ model: 'still', input: [{ image: goodPng }], encoding_format: 'int8' }),
  },
  {
    name: 'normalize that is not a boolean',
    status: 400,
    param: 'normalize',
    send: embed({ model: 'still', input: [{ image: goodPng }], normalize: 'yes' }),
  },
  {
    name: 'classify on a model without a head',
    status: 400,
    param: 'model',
    send: () => post(server, '/v1/classify', { model: 'still', input: [{ image: goodPng }] }),
  },
  {
    name: 'predict with an id off the grid',
    status: 400,
    param: 'target',
    message: /off the predictor grid/,
    send: () =>
      post(server, '/v1/predict', {
        model: 'predictor',
        input: { tensor: npy(new Float32Array(3 * 4 * 16 * 16), [1, 3, 4, 16, 16]) },
        context: '0:16',
        target: [40],
      }),
  },
  {
    name: 'predict with a malformed id range',
    status: 400,
    param: 'context',
    send: () => post(server, '/v1/predict', { model: 'predictor', input: { image: goodPng }, context: '5:', target: '1' }),
  },
  {
    name: 'rollout actions of the wrong width',
    status: 400,
    param: 'actions[0]',
    message: /10 values/,
    send: () =>
      post(server, '/v1/worldmodel/rollout', {
        model: 'lewm',
        images: [{ image: goodPng }],
        actions: [[1, 2]],
      }),
  },
  {
    name: 'rollout with both actions and random_actions',
    status: 400,
    param: 'actions',
    send: () =>
      post(server, '/v1/worldmodel/rollout', {
        model: 'lewm',
        images: [{ image: goodPng }],
        actions: [Array(10).fill(0)],
        random_actions: 2,
      }),
  },
  {
    name: 'a plan without a goal',
    status: 400,
    param: 'goal',
    send: () => post(server, '/v1/worldmodel/plan', { model: 'lewm', images: [{ image: goodPng }] }),
  },
  {
    name: 'a plan with top_k over samples',
    status: 400,
    param: 'top_k',
    send: () =>
      post(server, '/v1/worldmodel/plan', {
        model: 'lewm',
        images: [{ image: goodPng }],
        goal: { image: goodPng },
        samples: 4,
        top_k: 9,
      }),
  },
  { name: 'an unknown route', status: 404, send: () => post(server, '/v1/chat/completions', {}) },
  { name: 'GET on a POST route', status: 404, send: () => get(server, '/v1/embeddings') },
  { name: 'no API key', status: 401, send: () => post(keyed, '/v1/embeddings', { input: [{ image: goodPng }] }) },
  {
    name: 'a wrong API key',
    status: 401,
    send: () => post(keyed, '/v1/embeddings', { input: [{ image: goodPng }] }, { authorization: 'Bearer sesamf' }),
  },
  { name: 'a key that is a prefix of the right one', status: 401, send: () => get(keyed, '/v1/models', { authorization: 'Bearer sesam' }) },
];

describe('bad requests', () => {
  it(`the table has ${cases.length} cases`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  for (const c of cases) {
    it(`${c.name} -> ${c.status}`, async () => {
      const r = await c.send();
      expect(r.status, JSON.stringify(r.json)).toBe(c.status);
      expect(typeof r.json?.error?.message, 'an OpenAI-shaped error').toBe('string');
      expect(typeof r.json.error.type).toBe('string');
      expect(typeof r.json.error.code).toBe('string');
      if (c.param) expect(r.json.error.param).toBe(c.param);
      if (c.message) expect(r.json.error.message).toMatch(c.message);
    });
  }

  it('afterwards the server is healthy and still answers', async () => {
    expect((await get(server, '/health')).status).toBe(200);
    const ok = await post(server, '/v1/embeddings', { model: 'still', input: [{ image: goodPng }, { path: join(allowed, 'ok.png') }] });
    expect(ok.status).toBe(200);
    expect(ok.json.data).toHaveLength(2);
  });

  it('with --api-key: /health is public, the right key gets in', async () => {
    expect((await get(keyed, '/health')).status).toBe(200);
    expect((await get(keyed, '/metrics')).status).toBe(401);
    const r = await post(keyed, '/v1/embeddings', { input: [{ image: goodPng }] }, { authorization: 'Bearer sesame' });
    expect(r.status).toBe(200);
  });
});
