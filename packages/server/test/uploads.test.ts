// Uploads on a real server: a raw image or video body (Content-Type image/*, video/*, the other fields
// in the query string) and multipart/form-data give the bits of the same items sent as base64 JSON;
// their refusals; and a body 1.5 x over --max-body-mb is answered with a 413 that real clients read
// (Node fetch, Python's urllib, curl) for all three forms, the server lingering only within bounds.
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { demo, f32, heads, png, post, sameBits, sampleJpg, sampleMp4, startServer, tmp } from './helpers.js';

const dir = tmp('uploads');
const still = forgeModel('hfvit', { path: join(dir, 'still.gguf') });
const imageA = join(dir, 'a.png');
const imageB = join(dir, 'b.png');
writeFileSync(imageA, png(20, 16, 1));
writeFileSync(imageB, png(14, 18, 2));
const b64 = (p: string) => readFileSync(p).toString('base64');
const pooler = join(dir, 'pooler.gguf');
copyFileSync(join(heads, 'vjepa2_pooler', 'model.gguf'), pooler);
const LIMIT_MB = 1;

/** A client process run without blocking this one (the server under test answers on this event loop). */
function run(cmd: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(cmd, args, { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) => {
      done({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}
const OVER = Math.round(1.5 * LIMIT_MB * 2 ** 20);

let server: JepaServer;
beforeAll(async () => {
  server = await startServer({ models: [still.path, demo, pooler], maxBodyMb: LIMIT_MB });
});
afterAll(async () => {
  await server?.close();
});

interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON the server sent, read by path
  json: any;
}

async function send(route: string, body: BodyInit, headers: Record<string, string> = {}): Promise<Reply> {
  const r = await fetch(`${server.url}${route}`, { method: 'POST', headers, body });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

function form(fields: Record<string, string>, files: [string, string, string][]): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const [field, path, type] of files) f.append(field, new Blob([readFileSync(path)], { type }), path.split('/').pop());
  return f;
}

/** Every embedding of an answer, as float32 bits. */
const vectors = (r: Reply) => (r.json.data as { embedding: string }[]).map((d) => f32(d.embedding));

describe('raw and multipart bodies equal the base64 JSON path bit for bit', () => {
  it('POST /v1/embeddings: a raw PNG, a raw JPEG, and two files in one form', async () => {
    for (const [path, type] of [
      [imageA, 'image/png'],
      [sampleJpg, 'image/jpeg'],
    ] as const) {
      const json = await post(server, '/v1/embeddings', { model: 'still', input: { image: b64(path) }, encoding_format: 'base64', normalize: true });
      expect(json.status, JSON.stringify(json.json)).toBe(200);
      const raw = await send('/v1/embeddings?model=still&encoding_format=base64&normalize=true', readFileSync(path), { 'content-type': type });
      expect(raw.status, JSON.stringify(raw.json)).toBe(200);
      expect(sameBits(vectors(raw)[0]!, f32(json.json.data[0].embedding))).toBe(true);
    }
    const json = await post(server, '/v1/embeddings', {
      model: 'still',
      input: [{ image: b64(imageA) }, { image: b64(imageB) }],
      encoding_format: 'base64',
    });
    const multi = await send(
      '/v1/embeddings',
      form({ model: 'still', encoding_format: 'base64' }, [
        ['input', imageA, 'image/png'],
        ['input', imageB, 'image/png'],
      ]),
    );
    expect(multi.status, JSON.stringify(multi.json)).toBe(200);
    const [a, b] = vectors(multi);
    const [ja, jb] = vectors({ status: 200, json: json.json });
    expect(sameBits(a!, ja!) && sameBits(b!, jb!)).toBe(true);
    // negative control: the two items swapped do not match
    expect(sameBits(a!, jb!)).toBe(false);
  });

  it("POST /v1/classify: two files in a form, fields as text, give the JSON request's logits bit for bit", async () => {
    const json = await post(server, '/v1/classify', {
      model: 'pooler',
      input: [{ image: b64(sampleJpg) }, { image: b64(imageA) }],
      top_k: 3,
      logits: true,
    });
    expect(json.status, JSON.stringify(json.json)).toBe(200);
    const multi = await send(
      '/v1/classify',
      form({ model: 'pooler', top_k: '3', logits: 'true' }, [
        ['input', sampleJpg, 'image/jpeg'],
        ['input', imageA, 'image/png'],
      ]),
    );
    expect(multi.status, JSON.stringify(multi.json)).toBe(200);
    for (const i of [0, 1]) {
      expect(sameBits(Float32Array.from(multi.json.data[i].logits), Float32Array.from(json.json.data[i].logits))).toBe(true);
      expect(multi.json.data[i].top).toEqual(json.json.data[i].top);
    }
    expect(sameBits(Float32Array.from(multi.json.data[0].logits), Float32Array.from(json.json.data[1].logits))).toBe(false);
  });

  it('a raw video (Content-Type video/mp4) on the demo video model', async () => {
    const json = await post(server, '/v1/embeddings', {
      model: 'jepa-demo-vjepa2-untrained',
      input: { video: b64(sampleMp4) },
      encoding_format: 'base64',
    });
    expect(json.status, JSON.stringify(json.json)).toBe(200);
    const raw = await send('/v1/embeddings?model=jepa-demo-vjepa2-untrained&encoding_format=base64', readFileSync(sampleMp4), {
      'content-type': 'video/mp4',
    });
    expect(raw.status, JSON.stringify(raw.json)).toBe(200);
    expect(sameBits(vectors(raw)[0]!, f32(json.json.data[0].embedding))).toBe(true);
  });

  it('POST /v1/features: the same PNGs, and the embedding it includes is /v1/embeddings', async () => {
    const json = await post(server, '/v1/features', { model: 'still', input: { image: b64(imageA) } });
    expect(json.status, JSON.stringify(json.json)).toBe(200);
    const raw = await send('/v1/features?model=still&include=["embedding"]&encoding_format=base64', readFileSync(imageA), {
      'content-type': 'image/png',
    });
    expect(raw.status, JSON.stringify(raw.json)).toBe(200);
    const multi = await send('/v1/features', form({ model: 'still' }, [['input', imageA, 'image/png']]));
    expect(multi.status, JSON.stringify(multi.json)).toBe(200);
    for (const r of [raw, multi]) {
      expect(r.json.data[0].png).toBe(json.json.data[0].png);
      expect(r.json.data[0].view).toBe(json.json.data[0].view);
    }
    const embedded = await post(server, '/v1/embeddings', { model: 'still', input: { image: b64(imageA) }, encoding_format: 'base64' });
    expect(sameBits(f32(raw.json.data[0].embedding), f32(embedded.json.data[0].embedding))).toBe(true);
    expect(raw.json.pool).toBe('cls');
  });

  it('refusals: a raw body on a world-model route, a file that is no image, an unknown file field, a field twice, a query field nested too deep, an option without include', async () => {
    const world = await send('/v1/worldmodel/plan?model=still', readFileSync(imageA), { 'content-type': 'image/png' });
    expect([world.status, world.json.error.code]).toEqual([415, 'unsupported_media_type']);
    const text = await send('/v1/embeddings', form({ model: 'still' }, [['input', join(dir, 'still.gguf'), 'text/plain']]));
    expect([text.status, text.json.error.param]).toEqual([415, 'input']);
    const field = await send('/v1/embeddings', form({ model: 'still' }, [['picture', imageA, 'image/png']]));
    expect([field.status, field.json.error.code, field.json.error.param]).toEqual([400, 'unknown_field', 'picture']);
    const twice = await send('/v1/embeddings?model=still', form({ model: 'still' }, [['input', imageA, 'image/png']]));
    expect([twice.status, twice.json.error.code]).toEqual([400, 'duplicate_field']);
    const unknown = await send('/v1/embeddings?model=still&bogus=1', readFileSync(imageA), { 'content-type': 'image/png' });
    expect([unknown.status, unknown.json.error.param]).toEqual([400, 'bogus']);
    const deep = await send(`/v1/features?model=still&include=${'['.repeat(100)}${']'.repeat(100)}`, readFileSync(imageA), {
      'content-type': 'image/png',
    });
    expect([deep.status, deep.json.error.code, deep.json.error.param]).toEqual([400, 'invalid_json', 'include']);
    const option = await post(server, '/v1/features', { model: 'still', input: { image: b64(imageA) }, normalize: true });
    expect([option.status, option.json.error.param]).toEqual([400, 'normalize']);
  });
});

const tooLarge = (status: number, body: string) => {
  expect(status, body).toBe(413);
  expect(JSON.parse(body).error.code).toBe('body_too_large');
};

describe(`a body 1.5 x over --max-body-mb ${LIMIT_MB}: the 413 is read`, () => {
  const big = Buffer.alloc(OVER, 0x41);
  const jsonBody = Buffer.concat([Buffer.from('{"model":"still","input":{"image":"'), big, Buffer.from('"}}')]);
  const bigFile = join(dir, 'big.png');
  writeFileSync(bigFile, big);

  it('by Node fetch: JSON, raw and multipart', async () => {
    for (const [body, headers] of [
      [jsonBody, { 'content-type': 'application/json' }],
      [big, { 'content-type': 'image/png' }],
      [form({ model: 'still' }, [['input', bigFile, 'image/png']]), {}],
    ] as const) {
      const r = await fetch(`${server.url}/v1/embeddings`, { method: 'POST', headers, body: body as BodyInit });
      tooLarge(r.status, await r.text());
    }
  });

  it("by Python's urllib (which sends the whole body before it reads), JSON and raw", async () => {
    const python = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['--version']).status === 0);
    if (!python) throw new Error('no python3: bash scripts/setup.sh installs it (apt-get install python3)');
    const script = [
      'import sys, urllib.request, urllib.error',
      'body = open(sys.argv[2], "rb").read()',
      'req = urllib.request.Request(sys.argv[1], data=body, headers={"Content-Type": sys.argv[3]})',
      'try:',
      '    urllib.request.urlopen(req); print("200")',
      'except urllib.error.HTTPError as e:',
      '    print(e.code); print(e.read().decode())',
    ].join('\n');
    const jsonFile = join(dir, 'big.json');
    writeFileSync(jsonFile, jsonBody);
    for (const [file, type] of [
      [jsonFile, 'application/json'],
      [bigFile, 'image/png'],
    ] as const) {
      for (let i = 0; i < 3; i++) {
        const r = await run(python, ['-c', script, `${server.url}/v1/embeddings`, file, type]);
        expect(r.status, r.stderr).toBe(0);
        const [status, body] = r.stdout.split('\n');
        tooLarge(Number(status), body ?? '');
      }
    }
  });

  it('by curl: raw (--data-binary) and multipart (-F)', async () => {
    if (spawnSync('curl', ['--version']).status !== 0) throw new Error('no curl: bash scripts/setup.sh installs it (apt-get install curl)');
    for (const args of [
      ['--data-binary', `@${bigFile}`, '-H', 'Content-Type: image/png'],
      ['-F', `input=@${bigFile};type=image/png`],
    ]) {
      const r = await run('curl', ['-sS', '-w', '\n%{http_code}', ...args, `${server.url}/v1/embeddings?model=still`]);
      expect(r.status, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      tooLarge(Number(lines.at(-1)), lines.slice(0, -1).join('\n'));
    }
  });

  it('the linger is bounded: a client that stops short is closed by the server after 10 s; a huge Content-Length is not waited for', async () => {
    /** Sends the head and a part, then 1 KiB every 250 ms (never the whole body) until the server no longer takes them. */
    const trickle = (head: string, part: Buffer) =>
      new Promise<{ reply: string; ms: number }>((done) => {
        const started = performance.now();
        const s = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
        const got: Buffer[] = [];
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          clearInterval(drip);
          s.destroy();
          done({ reply: Buffer.concat(got).toString('latin1'), ms: performance.now() - started });
        };
        s.on('data', (d) => got.push(d));
        s.on('error', finish);
        s.on('close', finish);
        s.write(head);
        s.write(part);
        const drip = setInterval(() => s.write(Buffer.alloc(1024, 0x41)), 250);
        setTimeout(finish, 25_000);
      });
    const head = (length: number) =>
      `POST /v1/embeddings?model=still HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: ${length}\r\n\r\n`;
    // 1.5 x the limit declared, a tenth of it sent, then a trickle: the 413 at once, the close after the 10 s linger
    const stalled = await trickle(head(OVER), big.subarray(0, OVER / 10));
    expect(stalled.reply).toMatch(/^HTTP\/1\.1 413 /);
    console.log(`a client that stops short: closed by the server after ${stalled.ms.toFixed(0)} ms`);
    expect(stalled.ms).toBeGreaterThan(8000);
    expect(stalled.ms).toBeLessThan(20_000);
    // a 1 GiB Content-Length, past the drain bound: the 413 and the close at once
    const huge = await trickle(head(2 ** 30), big.subarray(0, 1024));
    expect(huge.reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(huge.ms).toBeLessThan(5000);
  }, 40_000);
});
