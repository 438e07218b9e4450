// GET /metrics parses as Prometheus text format 0.0.4 and its counters add up to the requests sent.
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { get, png, post, startServer, tmp } from './helpers.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A strict reader of the text format: every sample belongs to a family declared by # HELP and # TYPE. */
function parseProm(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (m) {
      if (m[1] === 'HELP') helps.add(m[2]!);
      else {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(m[3]);
        types.set(m[2]!, m[3]!);
      }
      continue;
    }
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    if (m[2]) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/gy;
      let rest = 0;
      for (let l = re.exec(m[2]); l; l = re.exec(m[2])) {
        labels[l[1]!] = l[2]!;
        rest = re.lastIndex;
      }
      if (rest !== m[2].length) throw new Error(`bad labels: ${m[2]}`);
    }
    // values as Prometheus reads them (Go's ParseFloat: NaN and Inf in any case)
    const text = m[3]!;
    const value = /^[+-]?inf(inity)?$/i.test(text) ? (text.startsWith('-') ? -Infinity : Infinity) : /^nan$/i.test(text) ? Number.NaN : Number(text);
    if (Number.isNaN(value) && !/^nan$/i.test(text)) throw new Error(`bad value: ${line}`);
    const family = [...types.keys()].find(
      (f) => m![1] === f || (types.get(f) === 'histogram' && /^(.*)_(bucket|sum|count)$/.exec(m![1]!)?.[1] === f),
    );
    if (!family || !helps.has(family)) throw new Error(`sample of an undeclared family: ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { types, samples };
}

const pick = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);

const dir = tmp('metrics');
const still = forgeModel('hfvit', { path: join(dir, 'still.gguf') });
const img = (i: number) => ({ image: png(10 + i, 12, i).toString('base64') });
let server: JepaServer;

beforeAll(async () => {
  server = await startServer({ models: [still.path], maxBatch: 4 });
});
afterAll(async () => {
  await server?.close();
});

describe('/metrics', () => {
  it('parses, and counts what was sent', async () => {
    const sizes = [1, 3, 2, 5, 1];
    const ok = await Promise.all(
      sizes.map((n, r) => post(server, '/v1/embeddings', { input: Array.from({ length: n }, (_, i) => img(r * 10 + i)) })),
    );
    expect(ok.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const bad = await Promise.all([
      post(server, '/v1/embeddings', '{'),
      post(server, '/v1/embeddings', { input: [{ image: 'not base64!' }] }),
      post(server, '/v1/embeddings', { input: [] }),
    ]);
    expect(bad.map((a) => a.status)).toEqual([400, 400, 400]);
    expect((await post(server, '/v1/embeddings', { model: 'nope', input: [img(0)] })).status).toBe(404);
    expect((await get(server, '/nowhere')).status).toBe(404);
    expect((await get(server, '/v1/models')).status).toBe(200);
    expect((await get(server, '/health')).status).toBe(200);

    const r = await get(server, '/metrics');
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const { types, samples } = parseProm(r.text);
    expect(types.get('jepa_requests_total')).toBe('counter');
    expect(types.get('jepa_request_duration_seconds')).toBe('histogram');
    expect(types.get('jepa_batch_size')).toBe('histogram');

    const items = sizes.reduce((a, b) => a + b, 0);
    expect(pick(samples, 'jepa_requests_total', { route: '/v1/embeddings', status: '200' })).toBe(5);
    expect(pick(samples, 'jepa_requests_total', { route: '/v1/embeddings', status: '400' })).toBe(3);
    expect(pick(samples, 'jepa_requests_total', { route: '/v1/embeddings', status: '404' })).toBe(1);
    expect(pick(samples, 'jepa_requests_total', { route: 'not_found', status: '404' })).toBe(1);
    expect(pick(samples, 'jepa_requests_total', { route: '/v1/models' })).toBe(1);
    expect(pick(samples, 'jepa_requests_total', { route: '/health' })).toBe(1);
    expect(pick(samples, 'jepa_requests_total')).toBe(12);
    expect(pick(samples, 'jepa_request_duration_seconds_count', { route: '/v1/embeddings' })).toBe(9);
    expect(pick(samples, 'jepa_items_total', { route: '/v1/embeddings' })).toBe(items);
    expect(pick(samples, 'jepa_batch_size_sum')).toBe(items);
    expect(pick(samples, 'jepa_queue_wait_seconds_count')).toBe(items);
    expect(pick(samples, 'jepa_batch_size_bucket', { le: '4' })).toBe(pick(samples, 'jepa_batch_size_count'));
    expect(pick(samples, 'jepa_batch_size_bucket', { le: '+Inf' })).toBe(pick(samples, 'jepa_batch_size_count'));
    expect(pick(samples, 'jepa_queue_depth')).toBe(0);
    expect(pick(samples, 'jepa_requests_in_flight')).toBe(1);
    expect(pick(samples, 'jepa_model_load_seconds', { model: 'still' })).toBeGreaterThan(0);
    expect(pick(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    const again = parseProm((await get(server, '/metrics')).text).samples;
    expect(pick(again, 'jepa_requests_total', { route: '/metrics', status: '200' })).toBe(1);
  });
});
