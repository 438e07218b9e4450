// Words through the engine, as a front end calls it, on the tiny dino.txt of fixtures/reference/dinotxt:
// text items are the session's embedText, held in the queue (too many are busy, a past deadline is a
// timeout); zero-shot logits are the session's textScores; a model without a text side is refused from
// its header, before it loads.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelSession } from '@jepa/session';
import { DEMO_MODEL, convertDinotxt, dinotxtReference, seededPng } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComputeLane, Engine, type EngineError, type InputItem, type ParsedItem, SILENT_METRICS } from '../src/index.js';
import { TextCache } from '../src/queue/text-cache.js';
import { TextBatcher } from '../src/queue/text-batcher.js';

const dir = mkdtempSync(join(tmpdir(), 'jepa-engine-words-'));
const ref = dinotxtReference();
const text = (t: string): InputItem => ({ field: 'input', kind: 'text', text: t });
const png = (seed: number): ParsedItem => ({ field: 'input.image', kind: 'image', bytes: seededPng(40, 40, seed) });

async function refusal(p: Promise<unknown>): Promise<EngineError> {
  try {
    await p;
  } catch (err) {
    return err as EngineError;
  }
  throw new Error('not refused');
}

let engine: Engine;
let session: ModelSession;

beforeAll(async () => {
  const model = convertDinotxt(join(dir, 'dinotxt.gguf'));
  engine = await Engine.create({ models: [model], threads: 2, maxQueue: 4, timeoutMs: 60_000 });
  await engine.ready;
  session = await ModelSession.load(model, { threads: 2 });
}, 120_000);
afterAll(async () => {
  await engine?.close();
  await session?.dispose();
});

describe('words through the engine', () => {
  it("text items are the session's embedText, in the request's order beside the images' aligned vectors", async () => {
    const r = await engine.embed({ items: [text(ref.texts[0]!), png(1), text(ref.texts[1]!)] });
    expect(r.pool).toBe('aligned');
    expect(r.data.map((d) => d.index)).toEqual([0, 1, 2]);
    const want = await session.embedText([ref.texts[0]!, ref.texts[1]!]);
    expect(Buffer.from(r.data[0]!.vector.values.buffer).equals(Buffer.from(want[0]!.values.buffer))).toBe(true);
    expect(Buffer.from(r.data[2]!.vector.values.buffer).equals(Buffer.from(want[1]!.values.buffer))).toBe(true);
    expect(r.data[1]!.vector.values.length).toBe(want[0]!.values.length);
  });

  it("zero-shot logits are the session's textScores of the image's aligned vector and the labels'", async () => {
    const labels = [ref.texts[0]!, ref.texts[3]!, ref.texts[4]!];
    const r = await engine.classify({ items: [png(2)], labels, topK: 2 });
    const [image] = await session.embed([seededPng(40, 40, 2)]);
    const want = session.textScores([image!], await session.embedText(labels))[0]!;
    expect(Array.from(r.data[0]!.logits)).toEqual(Array.from(want));
    expect(r.data[0]!.top).toHaveLength(2);
    expect(r.data[0]!.top[0]!.logit).toBe(Math.max(...want));
  });

  it("concurrent requests' texts share graphs, each with the bits it has alone", async () => {
    const texts = ref.texts.filter((t) => t.trim() !== '');
    const alone = await Promise.all(texts.map(async (t) => (await session.embedText([t]))[0]!.values));
    const graphs: number[] = [];
    const batcher = new TextBatcher(
      (batch) => {
        graphs.push(batch.length);
        return session.embedText(batch);
      },
      new ComputeLane(),
      { maxBatch: 8, maxWaitMs: 50 },
    );
    const signal = new AbortController().signal;
    const together = await Promise.all(texts.map((t) => batcher.embed([t], signal)));
    expect(graphs.length).toBeLessThan(texts.length);
    expect(graphs.reduce((a, b) => a + b, 0)).toBe(texts.length);
    for (const [i, v] of together.entries()) expect(Buffer.from(v[0]!.values.buffer).equals(Buffer.from(alone[i]!.buffer)), texts[i]).toBe(true);
    // through the engine too (its queue holds 4): concurrent requests answer what serial ones do
    const four = texts.slice(0, 4);
    const serial = [];
    for (const t of four) serial.push((await engine.embed({ items: [text(t)] })).data[0]!.vector.values);
    const concurrent = await Promise.all(four.map((t) => engine.embed({ items: [text(t)] })));
    for (const [i, r] of concurrent.entries())
      expect(Buffer.from(r.data[0]!.vector.values.buffer).equals(Buffer.from(serial[i]!.buffer)), four[i]).toBe(true);
  });

  it('texts hold places in the queue: more than it takes are busy, a past deadline is a timeout', async () => {
    const busy = await refusal(engine.embed({ items: [1, 2, 3, 4, 5].map((i) => text(`a photo ${i}`)) }));
    expect([busy.kind, busy.code]).toEqual(['busy', 'queue_full']);
    const late = await refusal(engine.embed({ items: [text('a dog')] }, { timeoutMs: 1 }));
    expect([late.kind, late.code]).toEqual(['timeout', 'timeout']);
    expect(engine.admission.depth).toBe(0);
  });
});

describe("the model's text cache", () => {
  it('keeps the most recently used texts: the least recently used leaves first, and each get is a copy', () => {
    const cache = new TextCache(2);
    const v = (x: number) => ({ values: new Float32Array([x, x]), shape: [2] });
    cache.set('a', v(1));
    cache.set('b', v(2));
    cache.get('a')!.values.fill(9); // a copy: the kept vector is untouched
    cache.set('c', v(3));
    expect([cache.get('a')?.values[0], cache.get('b'), cache.get('c')?.values[0], cache.size]).toEqual([1, undefined, 3, 2]);
  });

  it('a label sent again comes from the cache with the same bits; a text given twice runs once and is normalised in each place', async () => {
    const counts: [number, number][] = [];
    const model = convertDinotxt(join(dir, 'dinotxt-cache.gguf'));
    const cached = await Engine.create({ models: [model], threads: 2, metrics: { ...SILENT_METRICS, textVectors: (c, n) => counts.push([c, n]) } });
    try {
      await cached.ready;
      const [a, b, c] = [ref.texts[0]!, ref.texts[3]!, ref.texts[4]!];
      const first = await cached.classify({ items: [png(2)], labels: [a, b, a] });
      expect(counts).toEqual([[1, 2]]);
      expect(first.data[0]!.logits[2]).toBe(first.data[0]!.logits[0]);
      const again = await cached.classify({ items: [png(2)], labels: [b, c] });
      expect(counts).toEqual([
        [1, 2],
        [1, 1],
      ]);
      const [image] = await session.embed([seededPng(40, 40, 2)]);
      const want = session.textScores([image!], await session.embedText([b, c]))[0]!;
      expect(Array.from(again.data[0]!.logits)).toEqual(Array.from(want));
      const twice = await cached.embed({ items: [text(a), text(a)], normalize: true });
      expect(counts.at(-1)).toEqual([2, 0]);
      const [unit] = await session.embedText([a], { normalize: true });
      for (const d of twice.data) expect(Buffer.from(d.vector.values.buffer).equals(Buffer.from(unit!.values.buffer))).toBe(true);
    } finally {
      await cached.close();
    }
  });
});

describe('words to a model without a text side', () => {
  it('are refused from its header: the model never loads', async () => {
    const plain = await Engine.create({ models: [DEMO_MODEL], threads: 2 });
    try {
      await plain.ready;
      await plain.unloadModel(undefined);
      const e = await refusal(plain.embed({ items: [text('a dog')] }));
      expect(e).toMatchObject({ kind: 'input', code: 'unsupported_model', param: 'model' });
      expect(e.message).toMatch(/has no text tower; text needs a dino\.txt model$/);
      const z = await refusal(plain.classify({ items: [png(1)], labels: ['a dog'] }));
      expect(z).toMatchObject({ code: 'unsupported_model', param: 'model' });
      expect(plain.residencies().loaded).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
