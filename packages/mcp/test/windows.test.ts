// Long videos through `jepa mcp`: embed_video and classify_video with `sampling` answer one entry per
// window, with the numbers /v1/embeddings and /v1/classify give for the same sampled item; bad
// sampling is a tool error naming the field, not a crash.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layout, mcpBesideServer, root } from './helpers.js';

const { allowed, models } = layout('windows');
const video = join(allowed, 'cfr25.mp4');
copyFileSync(join(root, 'fixtures/video-windows/cfr25.mp4'), video);
const truncated = join(allowed, 'truncated.mp4');
const bytes = readFileSync(video);
writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
const sampling = { fps: 5, frames: 4 };

const { mcp, post } = mcpBesideServer(allowed, models);

interface Window {
  window: number;
  start_s: number;
  end_s: number;
  frames: number[];
}

const place = (w: Window) => ({ window: w.window, start_s: w.start_s, end_s: w.end_s, frames: w.frames });

describe('embed_video with sampling', () => {
  it('returns the windows with the embeddings of /v1/embeddings (path and base64)', async () => {
    const h = await post('/v1/embeddings', { model: 'demo', input: [{ path: video, sampling }] });
    expect(h.data).toHaveLength(7);
    for (const arg of [video, { data: bytes.toString('base64') }]) {
      const r = await mcp().ok<{ pool: string; dims: number; windows: (Window & { embedding: number[] })[]; warnings?: string[] }>('embed_video', {
        model: 'demo',
        video: arg,
        sampling,
      });
      expect(r.dims).toBe(192);
      expect(r.warnings).toBeUndefined();
      expect(r.windows.map(place)).toEqual(h.data.map(place));
      expect(r.windows.map((w) => w.embedding)).toEqual(h.data.map((d: { embedding: number[] }) => d.embedding));
      expect(r.windows[1]).toMatchObject({ window: 1, frames: [20, 25, 30, 35], start_s: 0.8 });
    }
  });

  it('without sampling the answer is unchanged', async () => {
    const r = await mcp().ok<Record<string, unknown>>('embed_video', { model: 'demo', video });
    expect(Object.keys(r).sort()).toEqual(['dims', 'embedding', 'model', 'pool']);
  });

  it('a truncated file: its complete windows and one warning', async () => {
    const r = await mcp().ok<{ windows: Window[]; warnings: string[] }>('embed_video', { model: 'demo', video: truncated, sampling });
    expect(r.windows.length).toBeGreaterThan(0);
    expect(r.windows.length).toBeLessThan(7);
    expect(r.warnings).toHaveLength(1);
  });

  it('bad sampling is a tool error naming the field', async () => {
    expect(await mcp().refused('embed_video', { model: 'demo', video, sampling: { fps: 0 } })).toMatch(/^sampling\.fps: /);
    expect(await mcp().refused('embed_video', { model: 'demo', video, sampling: { fsp: 5 } })).toMatch(/^sampling\.fsp: unknown field/);
    expect(await mcp().refused('embed_video', { model: 'demo', video, sampling: { start: 100 } })).toMatch(/^sampling: .*no frame/);
    expect(await mcp().refused('embed_video', { model: 'demo', video: { path: video, kind: 'frames' }, sampling })).toMatch(/^video\.kind: /);
    // the server is still answering
    expect((await mcp().ok<{ windows: Window[] }>('embed_video', { model: 'demo', video, sampling })).windows).toHaveLength(7);
  });
});

describe('classify_video with sampling', () => {
  it('returns one classification per window, as /v1/classify does', async () => {
    const h = await post('/v1/classify', { model: 'vjepa2_pooler', input: [{ path: video, sampling }], top_k: 3 });
    const r = await mcp().ok<{ windows: (Window & { top: unknown[] })[] }>('classify_video', { model: 'vjepa2_pooler', video, sampling, top_k: 3 });
    expect(r.windows).toHaveLength(7);
    expect(r.windows.map(place)).toEqual(h.data.map(place));
    expect(r.windows.map((w) => w.top)).toEqual(h.data.map((d: { top: unknown[] }) => d.top));
  });
});
