// The pieces on their own: the allow-path check, the JSON depth scan, strict base64, the one error
// mapping, and the engine property dynamic batching rests on: an image's encoder output has the same
// bits alone or in a batch.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GgmlType, forgeModel } from '@jepa/gguf';
import { Model } from '@jepa/graph';
import { describe, expect, it } from 'vitest';
import { EngineError, PathPolicy, badField, decodeBase64, isWithin, notFound, unavailable } from '@jepa/engine';
import { HTTP_STATUS } from '@jepa/errors';
import { SearchError } from '@jepa/search';
import { toApiError } from '../src/errors.js';
import { float32Base64, jsonDepth } from '../src/index.js';
import { THREADS, sameBits, tmp } from './helpers.js';

describe('isWithin', () => {
  it('takes the root itself or root + separator only', () => {
    expect(isWithin('/allowed', '/allowed')).toBe(true);
    expect(isWithin('/allowed', '/allowed/a.png')).toBe(true);
    expect(isWithin('/allowed', '/allowed_evil/a.png')).toBe(false);
    expect(isWithin('/allowed', '/allowedx')).toBe(false);
    expect(isWithin('/', '/etc/passwd')).toBe(true);
  });
});

describe('PathPolicy', () => {
  const base = tmp('paths');
  const allowed = join(base, 'allowed');
  const evil = join(base, 'allowed_evil');
  mkdirSync(join(allowed, 'sub'), { recursive: true });
  mkdirSync(evil);
  writeFileSync(join(allowed, 'sub', 'a.png'), 'x');
  writeFileSync(join(evil, 'b.png'), 'x');
  symlinkSync(join(evil, 'b.png'), join(allowed, 'escape.png'));
  symlinkSync(join(allowed, 'sub', 'a.png'), join(allowed, 'inside.png'));
  symlinkSync(evil, join(allowed, 'dirlink'));

  const status = async (policy: PathPolicy, p: unknown) => {
    try {
      await policy.check('input[0].path', p);
      return 200;
    } catch (err) {
      return HTTP_STATUS[(err as EngineError).kind];
    }
  };

  it('allows files under the root, links that stay inside, and refuses everything else', async () => {
    const policy = await PathPolicy.create([allowed]);
    expect(await policy.check('f', join(allowed, 'sub', 'a.png'))).toBe(join(allowed, 'sub', 'a.png'));
    expect(await policy.check('f', join(allowed, 'inside.png'))).toBe(join(allowed, 'sub', 'a.png'));
    expect(await status(policy, join(allowed, 'escape.png'))).toBe(403);
    expect(await status(policy, join(allowed, 'dirlink', 'b.png'))).toBe(403);
    expect(await status(policy, join(evil, 'b.png'))).toBe(403);
    expect(await status(policy, `${allowed}/sub/../../allowed_evil/b.png`)).toBe(400);
    expect(await status(policy, `${allowed}/sub/a.png\0.jpg`)).toBe(400);
    expect(await status(policy, 'sub/a.png')).toBe(400);
    expect(await status(policy, join(allowed, 'missing.png'))).toBe(400);
    expect(await status(policy, join(allowed, 'sub'))).toBe(400);
    expect(await status(policy, 42)).toBe(400);
  });

  it('a root given through a link is judged by its real path', async () => {
    const link = join(base, 'root-link');
    symlinkSync(allowed, link);
    const policy = await PathPolicy.create([link]);
    expect(await status(policy, join(link, 'sub', 'a.png'))).toBe(200);
    expect(await status(policy, join(allowed, 'sub', 'a.png'))).toBe(200);
    expect(await status(policy, join(link, 'escape.png'))).toBe(403);
  });

  it('without roots every path is refused; a missing root is a startup error', async () => {
    expect(await status(await PathPolicy.create([]), join(allowed, 'sub', 'a.png'))).toBe(403);
    await expect(PathPolicy.create([join(base, 'nope')])).rejects.toThrow(/no such folder/);
  });
});

describe('toApiError', () => {
  it("answers every JepaError by its kind, the index's as the engine's and the routes' own", () => {
    const cases: [Error, number, string, string | null][] = [
      [badField('k', 'must be a whole number from 1 to 1000'), 400, 'invalid_request_error', 'k'],
      [notFound('this server has no index; start it with --index DIR', 'no_index'), 404, 'not_found_error', null],
      [new EngineError('queue_full', 'the queue is full', { kind: 'busy', retryAfter: 3 }), 429, 'rate_limit_error', null],
      [new SearchError('query_kind', 'give one query: an input item or a row id'), 400, 'invalid_request_error', null],
      [new SearchError('row_unknown', 'idx has no row 9'), 404, 'not_found_error', null],
      [new SearchError('index_io', 'the disk is full'), 500, 'server_error', null],
    ];
    for (const [err, status, type, param] of cases) {
      const api = toApiError(err);
      expect([api.status, api.body()]).toEqual([status, { error: { message: err.message, type, param, code: (err as EngineError).code } }]);
    }
    expect(toApiError(cases[2]![0]).headers).toEqual({ 'retry-after': '3' });
    expect(toApiError(unavailable('the models are still loading', 'loading')).headers).toEqual({ 'retry-after': '1' });
    // anything else is a 500 that keeps its cause
    const fault = new TypeError('x is undefined');
    const api = toApiError(fault);
    expect([api.status, api.code, (api as { cause?: unknown }).cause]).toEqual([500, 'internal_error', fault]);
  });
});

describe('jsonDepth', () => {
  it('counts nesting outside strings and stops early on a bomb', () => {
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonDepth('{"a":"[[[[[[[[\\"[[["}')).toBe(1);
    expect(jsonDepth('['.repeat(10_000_000), 32)).toBe(33);
  });
});

describe('decodeBase64', () => {
  const ok = (s: string) => decodeBase64('f', s).toString('latin1');
  const code = (s: unknown) => {
    try {
      decodeBase64('f', s);
      return 'ok';
    } catch (err) {
      return (err as EngineError).code;
    }
  };
  it('reads padded, unpadded, URL-safe base64 and data: URIs', () => {
    expect(ok('aGVsbG8=')).toBe('hello');
    expect(ok('aGVsbG8')).toBe('hello');
    expect(ok('data:image/png;base64,aGVsbG8=')).toBe('hello');
    expect(decodeBase64('f', '-_8=')).toEqual(Buffer.from([0xfb, 0xff]));
  });
  it('refuses anything else, and URLs by name', () => {
    expect(code('aGV$bG8=')).toBe('invalid_base64');
    expect(code('aGVsbG8=x')).toBe('invalid_base64');
    expect(code('a')).toBe('invalid_base64');
    expect(code('aGVs bG8=')).toBe('invalid_base64');
    expect(code('')).toBe('invalid_base64');
    expect(code(12)).toBe('invalid_base64');
    expect(code('data:image/png,aGVsbG8=')).toBe('invalid_base64');
    expect(code('https://example.com/a.png')).toBe('url_not_supported');
    expect(code('file:///etc/passwd')).toBe('url_not_supported');
  });
  it('float32Base64 writes little-endian float32', () => {
    expect(Buffer.from(float32Base64(Float32Array.of(1, -2)), 'base64')).toEqual(Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]));
  });
});

describe('an image encodes to the same bits alone and in a batch', () => {
  // checked for every weight type the CPU kernels take; the server's bit-identity rests on it
  const types: [string, number][] = [
    ['f32', GgmlType.F32],
    ['f16', GgmlType.F16],
    ['q8_0', GgmlType.Q8_0],
    ['q4_0', GgmlType.Q4_0],
  ];
  for (const [name, type] of types) {
    it(name, async () => {
      const forged = forgeModel('hfvit', { matmulType: type, tensorType: { 'enc.patch_embed.weight': GgmlType.F16 } });
      const model = await Model.load(forged.path, { threads: THREADS });
      const ctx = model.createContext({ maxBatch: 8 });
      try {
        const size = 3 * 32 * 32;
        const data = Float32Array.from({ length: 8 * size }, (_, i) => Math.sin(i * 0.37) * 1.3);
        const batch = await ctx.encode({ data, shape: [8, 3, 32, 32] });
        for (let i = 0; i < 8; i++) {
          const alone = await ctx.encode({ data: data.slice(i * size, (i + 1) * size), shape: [1, 3, 32, 32] });
          expect(sameBits(alone.tokens, batch.item(i)), `item ${i}`).toBe(true);
        }
      } finally {
        ctx.dispose();
        model.dispose();
      }
    });
  }
});
