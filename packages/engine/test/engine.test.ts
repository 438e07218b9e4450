// The engine on its own, as a front end calls it: the queue's bound, deadlines and cancellation
// (each refusal's kind), and the rules every front end shares (pooling, the model lookup).
import { DEMO_MODEL, seededPng } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type EngineError, type ParsedItem } from '../src/index.js';

const png = (seed: number): ParsedItem => ({ field: 'input.image', kind: 'image', bytes: seededPng(32, 32, seed) });

async function refusal(p: Promise<unknown>): Promise<EngineError> {
  try {
    await p;
  } catch (err) {
    return err as EngineError;
  }
  throw new Error('not refused');
}

describe('Engine', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.create({ models: [DEMO_MODEL], threads: 2, maxQueue: 4, timeoutMs: 60_000, listHint: '(a hint)' });
    await engine.ready;
    expect(engine.phase).toBe('ready');
  });
  afterAll(() => engine?.close());

  it('embeds with the default pool (mean on a model without CLS) and normalises to unit length', async () => {
    const r = await engine.embed({ items: [png(1), png(2)], normalize: true });
    expect(r.pool).toBe('mean');
    expect(r.data.map((d) => d.index)).toEqual([0, 1]);
    for (const d of r.data) expect(Math.hypot(...d.vector.values)).toBeCloseTo(1, 5);
    expect(r.usage.items).toBe(2);
  });

  it('refuses a pool the model lacks, and an unknown model, with their kinds', async () => {
    expect(await refusal(engine.embed({ items: [png(1)], pool: 'cls' }))).toMatchObject({ kind: 'input', param: 'pool' });
    const e = await refusal(engine.embed({ model: 'nope', items: [png(1)] }));
    expect([e.kind, e.code, e.message]).toEqual(['not_found', 'model_not_found', "model 'nope' is not served (a hint)"]);
  });

  it('refuses more items than the queue holds as busy, with a wait', async () => {
    const e = await refusal(engine.embed({ items: [1, 2, 3, 4, 5].map(png) }));
    expect([e.kind, e.code]).toEqual(['busy', 'queue_full']);
    expect(e.retryAfter).toBeGreaterThanOrEqual(1);
  });

  it('a call past its deadline is a timeout; an aborted one is cancelled; the queue is free after both', async () => {
    const late = await refusal(engine.embed({ items: [png(3)] }, { timeoutMs: 1 }));
    expect([late.kind, late.code]).toEqual(['timeout', 'timeout']);
    const gone = new AbortController();
    gone.abort();
    const cancelled = await refusal(engine.embed({ items: [png(4)] }, { signal: gone.signal }));
    expect([cancelled.kind, cancelled.code]).toEqual(['cancelled', 'cancelled']);
    expect(engine.admission.depth).toBe(0);
  });

  it('refuses a classify on a model without a head, before any work', async () => {
    expect(await refusal(engine.classify({ items: [png(1)] }))).toMatchObject({ kind: 'input', code: 'unsupported_model', param: 'model' });
  });
});

describe('Engine.create', () => {
  it('refuses no models unless told to allow none', async () => {
    await expect(Engine.create({})).rejects.toThrow(/no models/);
    const none = await Engine.create({ allowNoModels: true });
    expect(await none.models()).toEqual([]);
    await none.close();
  });
});
