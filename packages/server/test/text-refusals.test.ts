// Words sent to a model without a text side, and malformed words, on a real server on loopback: each is
// a one-line OpenAI-shaped 400 naming the field (the model, for a model without a text side) before
// anything loads; the official openai SDK gets the same refusal as an APIError. Image inputs still work.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { jepa, png, post, startServer, THREADS, tmp } from './helpers.js';

const dir = tmp('text-refusals');
const still = forgeModel('hfvit', { path: join(dir, 'still.gguf') });
const photo = join(dir, 'a.png');
writeFileSync(photo, png(16, 16, 5));
const db = join(dir, 'db');

let server: JepaServer;

beforeAll(async () => {
  const r = jepa('index', 'add', '--db', db, '-m', still.path, photo, '-t', String(THREADS));
  expect(r.code, r.err).toBe(0);
  server = await startServer({ models: [still.path], allowPaths: [dir], index: db });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

/** A 400 in OpenAI's error shape, one line, naming `param`; its message. */
function refused(r: { status: number; json: { error?: { message: string; param: string | null; type: string } } }, param: string): string {
  expect(r.status, JSON.stringify(r.json)).toBe(400);
  expect(r.json.error!.type).toBe('invalid_request_error');
  expect(r.json.error!.param).toBe(param);
  expect(r.json.error!.message).not.toMatch(/\n/);
  return r.json.error!.message;
}

describe('words to a model without a text side', () => {
  it('/v1/embeddings refuses a string, an array of strings and {text} items, naming the model', async () => {
    for (const input of ['a red car', ['a red car', 'a dog'], [{ text: 'a red car' }], [{ image: png(8, 8, 1).toString('base64') }, 'a dog']])
      expect(refused(await post(server, '/v1/embeddings', { model: 'still', input }), 'model')).toMatch(/^model: still \(hfvit\) has no text tower/);
  });

  it('the openai SDK gets the refusal as a 400 APIError', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const err = await client.embeddings.create({ model: 'still', input: 'a red car' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((err as InstanceType<typeof OpenAI.APIError>).message).toMatch(/still \(hfvit\) has no text tower/);
  });

  it('/v1/classify refuses labels, naming the model', async () => {
    const input = { image: png(8, 8, 2).toString('base64') };
    expect(refused(await post(server, '/v1/classify', { model: 'still', input, labels: ['a dog', 'a cat'] }), 'model')).toMatch(
      /^model: still \(hfvit\) has no text tower/,
    );
  });

  it('/v1/search refuses words on an index of image vectors, naming its model and pooling', async () => {
    expect(refused(await post(server, '/v1/search', { text: 'a red car' }), 'text')).toMatch(/^text: the index holds still\.gguf's "cls" vectors/);
  });

  it('image inputs still embed', async () => {
    const r = await post(server, '/v1/embeddings', { model: 'still', input: [{ image: png(8, 8, 3).toString('base64') }] });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data[0].embedding.length).toBe(r.json.data[0].shape[0]);
  });
});

describe('malformed words', () => {
  const cases: [string, unknown, string, RegExp][] = [
    ['an empty string', '', 'input', /must not be empty/],
    ['an empty text item', [{ text: ' ' }], 'input[0].text', /must not be empty/],
    ['a text item that is not a string', [{ text: 3 }], 'input[0].text', /must be a string/],
    ['a text item with another field', [{ text: 'a', image: 'x' }], 'input[0].image', /unknown field/],
    ['token ids', [101, 102], 'input', /token ids are not taken/],
    ['arrays of token ids', [[101, 102]], 'input', /token ids are not taken/],
    ['too long a text', 'x'.repeat(5000), 'input', /at most 4096/],
  ];
  for (const [name, input, param, message] of cases)
    it(`/v1/embeddings: ${name}`, async () => {
      expect(refused(await post(server, '/v1/embeddings', { model: 'still', input }), param)).toMatch(message);
    });

  it('/v1/classify: labels that are not a list of words', async () => {
    const input = { image: png(8, 8, 2).toString('base64') };
    expect(refused(await post(server, '/v1/classify', { input, labels: [] }), 'labels')).toMatch(/holds no texts/);
    expect(refused(await post(server, '/v1/classify', { input, labels: ['a', 7] }), 'labels[1]')).toMatch(/must be a string/);
  });

  it('/v1/search: text with another query, or empty', async () => {
    expect(refused(await post(server, '/v1/search', { text: 'a', row: 1 }), 'row')).toMatch(/give one of/);
    expect(refused(await post(server, '/v1/search', { text: '' }), 'text')).toMatch(/must not be empty/);
  });
});
