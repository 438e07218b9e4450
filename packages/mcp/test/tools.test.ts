// Every tool of `jepa mcp`, through the SDK's Client over stdio, against jepa serve's routes on the
// same models and files (an in-process createServer): the same input gives the same numbers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cosine } from '@jepa/graph';
import { describe, expect, it } from 'vitest';
import { layout, mcpBesideServer } from './helpers.js';

const { allowed, models } = layout('tools');
const at = (name: string) => join(allowed, name);
const b64 = (name: string) => readFileSync(at(name)).toString('base64');

const { mcp, post } = mcpBesideServer(allowed, models);

async function httpEmbedding(model: string, item: unknown, extra: Record<string, unknown> = {}): Promise<number[]> {
  return (await post('/v1/embeddings', { model, input: [item], ...extra })).data[0].embedding;
}

describe('list_models', () => {
  it('names every model with its family, width and tools', async () => {
    const r = await mcp().ok<{ models: { id: string; family: string; dims: number; tools: string[] }[] }>('list_models');
    const byId = Object.fromEntries(r.models.map((m) => [m.id, m]));
    expect(Object.keys(byId).sort()).toEqual(['demo', 'lewm', 'vit', 'vjepa2_pooler', 'vjepa2_predictor']);
    expect(byId.demo).toMatchObject({ family: 'vjepa2', dims: 192, tools: ['embed_image', 'embed_video', 'compare'] });
    expect(byId.vjepa2_pooler!.tools).toContain('classify_video');
    expect(byId.vjepa2_predictor!.tools).toContain('predict_latents');
    expect(byId.lewm!.tools).toContain('plan');
  });
});

describe('embed_image and embed_video', () => {
  it('equal /v1/embeddings for a path, a data: URI and plain base64, with pool and normalize', async () => {
    const viaPath = await mcp().ok<{ embedding: number[]; dims: number; pool: string }>('embed_image', { model: 'demo', image: at('sample.jpg') });
    expect(viaPath.dims).toBe(192);
    expect(viaPath.pool).toBe('mean');
    expect(viaPath.embedding).toEqual(await httpEmbedding('demo', { path: at('sample.jpg') }));
    const viaUri = await mcp().ok<{ embedding: number[] }>('embed_image', { model: 'demo', image: `data:image/png;base64,${b64('a.png')}` });
    const viaData = await mcp().ok<{ embedding: number[] }>('embed_image', { model: 'demo', image: { data: b64('a.png') } });
    const ref = await httpEmbedding('demo', { image: b64('a.png') });
    expect(viaUri.embedding).toEqual(ref);
    expect(viaData.embedding).toEqual(ref);
    const normalized = await mcp().ok<{ embedding: number[] }>('embed_image', { model: 'demo', image: at('a.png'), pool: 'mean', normalize: true });
    expect(normalized.embedding).toEqual(await httpEmbedding('demo', { path: at('a.png') }, { pool: 'mean', normalize: true }));
    expect(Math.hypot(...normalized.embedding)).toBeCloseTo(1, 5);
  });

  it('embed_video equals /v1/embeddings on the clip (path and base64) and differs from the still', async () => {
    const clip = await mcp().ok<{ embedding: number[] }>('embed_video', { model: 'demo', video: at('sample.mp4') });
    expect(clip.embedding).toEqual(await httpEmbedding('demo', { path: at('sample.mp4') }));
    const inline = await mcp().ok<{ embedding: number[] }>('embed_video', { model: 'demo', video: { data: b64('sample.mp4') } });
    expect(inline.embedding).toEqual(clip.embedding);
    const still = await mcp().ok<{ embedding: number[] }>('embed_image', { model: 'demo', image: at('sample.jpg') });
    expect(still.embedding).not.toEqual(clip.embedding);
  });

  it('a model with a CLS token pools it by default, as /v1/embeddings does (a forged ViT)', async () => {
    const r = await mcp().ok<{ embedding: number[]; pool: string }>('embed_image', { model: 'vit', image: at('sample.jpg') });
    expect(r.pool).toBe('cls');
    expect(r.embedding).toEqual(await httpEmbedding('vit', { path: at('sample.jpg') }));
    const mean = await mcp().ok<{ embedding: number[] }>('embed_image', { model: 'vit', image: at('sample.jpg'), pool: 'mean' });
    expect(mean.embedding).toEqual(await httpEmbedding('vit', { path: at('sample.jpg') }, { pool: 'mean' }));
    expect(mean.embedding).not.toEqual(r.embedding);
  });

  it('pool "cls+mean" is the CLS beside the patch mean, 2·D wide, as /v1/embeddings gives it', async () => {
    const args = { model: 'vit', image: at('sample.jpg') };
    const both = await mcp().ok<{ embedding: number[]; dims: number; pool: string }>('embed_image', { ...args, pool: 'cls+mean' });
    const cls = await mcp().ok<{ embedding: number[] }>('embed_image', { ...args, pool: 'cls' });
    const mean = await mcp().ok<{ embedding: number[] }>('embed_image', { ...args, pool: 'mean' });
    expect([both.pool, both.dims]).toEqual(['cls+mean', 2 * cls.embedding.length]);
    expect(both.embedding).toEqual([...cls.embedding, ...mean.embedding]);
    expect(both.embedding).toEqual(await httpEmbedding('vit', { path: at('sample.jpg') }, { pool: 'cls+mean' }));
  });

  it('size resizes the image straight to it, as /v1/embeddings does with size', async () => {
    const args = { model: 'vit', image: at('sample.jpg') };
    const sized = await mcp().ok<{ embedding: number[] }>('embed_image', { ...args, size: [24, 40] });
    expect(sized.embedding).toEqual(await httpEmbedding('vit', { path: at('sample.jpg') }, { size: [24, 40] }));
    expect(sized.embedding).not.toEqual((await mcp().ok<{ embedding: number[] }>('embed_image', args)).embedding);
    expect(await mcp().refused('embed_image', { ...args, size: 0 })).toMatch(/size/);
  });

  it('pool "lewm" is the LeWorldModel state, as /v1/embeddings gives it', async () => {
    const r = await mcp().ok<{ embedding: number[]; dims: number }>('embed_image', { model: 'lewm', image: at('a.png'), pool: 'lewm' });
    expect(r.embedding).toEqual(await httpEmbedding('lewm', { path: at('a.png') }, { pool: 'lewm' }));
  });

  it('refuses a pool the model lacks, and a model that is not loaded, in one line', async () => {
    expect(await mcp().refused('embed_image', { model: 'demo', image: at('a.png'), pool: 'cls' })).toMatch(/^pool: vjepa2 models have no CLS token/);
    expect(await mcp().refused('embed_image', { model: 'nope', image: at('a.png') })).toMatch(/^model 'nope' is not served/);
    expect(await mcp().refused('embed_image', { image: at('a.png') })).toMatch(/^model: required: 5 models are served/);
  });
});

describe('compare', () => {
  it('gives the cosine of /v1/embeddings vectors and ranks the items by it', async () => {
    const items = [at('a.png'), at('goal.png'), at('sample.jpg')];
    const r = await mcp().ok<{ similarities: number[]; ranking: { index: number; similarity: number }[] }>('compare', {
      model: 'demo',
      query: at('sample.jpg'),
      items,
    });
    const q = Float32Array.from(await httpEmbedding('demo', { path: at('sample.jpg') }));
    const expected = [];
    for (const p of items) expected.push(cosine(q, Float32Array.from(await httpEmbedding('demo', { path: p }))));
    expect(r.similarities).toEqual(expected);
    expect(r.similarities[2]).toBeCloseTo(1, 6);
    expect(r.ranking[0]!.index).toBe(2);
    expect(r.ranking.map((x) => x.similarity)).toEqual([...expected].sort((a, b) => b - a));
    const two = await mcp().ok<{ similarities: number[] }>('compare', { model: 'demo', query: at('a.png'), items: [at('goal.png')] });
    const a = Float32Array.from(await httpEmbedding('demo', { path: at('a.png') }));
    const g = Float32Array.from(await httpEmbedding('demo', { path: at('goal.png') }));
    expect(two.similarities).toEqual([cosine(a, g)]);
  });
});

describe('classify_video', () => {
  it('equals /v1/classify on a tensor, an image (repeated to the frames) and a video', async () => {
    for (const [video, item] of [
      [
        { path: at('clip.npy'), kind: 'tensor' },
        { path: at('clip.npy'), kind: 'tensor' },
      ],
      [at('a.png'), { path: at('a.png') }],
      [at('sample.mp4'), { path: at('sample.mp4') }],
    ] as const) {
      const r = await mcp().ok<{ top: unknown[]; logits: number[] }>('classify_video', { model: 'vjepa2_pooler', video, top_k: 3, logits: true });
      const h = await post('/v1/classify', { model: 'vjepa2_pooler', input: [item], top_k: 3, logits: true });
      expect(r.top).toEqual(h.data[0].top);
      expect(r.logits).toEqual(h.data[0].logits);
    }
  });

  it('refuses a model without a head', async () => {
    expect(await mcp().refused('classify_video', { model: 'demo', video: at('a.png') })).toMatch(/^model: demo has no classifier head$/);
  });
});

describe('predict_latents', () => {
  it("is the cosine of /v1/predict's predictions to the encoder's tokens at the targets", async () => {
    const target = [16, 17, 18, 19, 25];
    const r = await mcp().ok<{ cosines: number[]; mean_cosine: number; target_ids: number[]; dims: number }>('predict_latents', {
      model: 'vjepa2_predictor',
      media: { path: at('clip.npy'), kind: 'tensor' },
      context: '0:16',
      target,
    });
    const item = { path: at('clip.npy'), kind: 'tensor' };
    const p = await post('/v1/predict', { model: 'vjepa2_predictor', input: item, context: '0:16', target });
    const e = await post('/v1/embeddings', { model: 'vjepa2_predictor', input: [item], pool: 'none' });
    const [n, D] = e.data[0].shape as [number, number];
    const tokens = Float32Array.from(e.data[0].embedding.flat() as number[]);
    expect(n).toBe(32);
    const expected = target.map((id, i) => cosine(Float32Array.from(p.predictions[i] as number[]), tokens.subarray(id * D, (id + 1) * D)));
    expect(r.target_ids).toEqual(target);
    expect(r.dims).toBe(D);
    expect(r.cosines).toEqual(expected);
    expect(r.mean_cosine).toBeCloseTo(expected.reduce((a, b) => a + b, 0) / expected.length, 12);
  });

  it('names an off-grid target id', async () => {
    expect(
      await mcp().refused('predict_latents', {
        model: 'vjepa2_predictor',
        media: { path: at('clip.npy'), kind: 'tensor' },
        context: '0:16',
        target: [99],
      }),
    ).toMatch(/^target: target token id 99 is off the predictor grid/);
  });
});

describe('plan', () => {
  it("equals /v1/worldmodel/plan, and its cost is the plan's rollout cost from /v1/worldmodel/rollout", async () => {
    const opts = { horizon: 3, samples: 16, iterations: 3, top_k: 4, seed: 1 };
    const r = await mcp().ok<{ actions: number[][]; cost: number; best_costs: number[]; horizon: number; action_dim: number; space: string }>(
      'plan',
      {
        model: 'lewm',
        start: at('a.png'),
        goal: at('goal.png'),
        ...opts,
      },
    );
    const h = await post('/v1/worldmodel/plan', { model: 'lewm', images: [{ path: at('a.png') }], goal: { path: at('goal.png') }, ...opts });
    expect(r.actions).toEqual(h.actions);
    expect(r.best_costs).toEqual(h.best_costs);
    expect(r.horizon).toBe(3);
    expect(r.space).toBe('model');
    const roll = await post('/v1/worldmodel/rollout', {
      model: 'lewm',
      images: [{ path: at('a.png') }],
      actions: r.actions,
      goal: { path: at('goal.png') },
    });
    expect(r.cost).toBe(roll.costs[0]);
  });

  it('a plan the client cancels stops at its next CEM iteration (the server goes idle)', async () => {
    // CPU seconds the server process has used (utime + stime, in clock ticks of 1/100 s)
    const ticks = () => {
      const f = readFileSync(`/proc/${mcp().transport.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(f[11]) + Number(f[12]);
    };
    const busy = async () => {
      const t0 = ticks();
      await new Promise((r) => setTimeout(r, 1000));
      return ticks() - t0;
    };
    const controller = new AbortController();
    const long = mcp().client.callTool(
      { name: 'plan', arguments: { model: 'lewm', start: at('a.png'), goal: at('goal.png'), samples: 4096, iterations: 1000, top_k: 64 } },
      undefined,
      { signal: controller.signal, timeout: 120_000 },
    );
    long.catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    // planning keeps the server busy (about 260 ms per iteration on a quiet core, 1000 iterations); on a
    // loaded machine it gets less of a core, and the iteration in flight at the abort takes longer to end,
    // so the bound is relative and the server has up to 15 s to go idle (the plan would take minutes)
    const planning = await busy();
    expect(planning).toBeGreaterThan(10);
    controller.abort();
    await expect(long).rejects.toThrow();
    const seen: number[] = [];
    while (seen.length < 15 && (seen.length === 0 || seen.at(-1)! >= Math.min(20, planning / 3))) seen.push(await busy());
    expect(seen.at(-1), `${planning} ticks a second planning, then ${seen.join(', ')}`).toBeLessThan(Math.min(20, planning / 3));
    expect((await mcp().ok<{ dims: number }>('embed_image', { model: 'lewm', image: at('a.png') })).dims).toBeGreaterThan(0);
  });

  it('refuses a model that is not a LeWorldModel', async () => {
    expect(await mcp().refused('plan', { model: 'demo', start: at('a.png'), goal: at('goal.png') })).toMatch(/^model: demo is not a LeWorldModel/);
  });
});
