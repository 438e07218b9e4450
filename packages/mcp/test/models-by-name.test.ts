// Models named hf:ORG/NAME through `jepa mcp` (the built CLI, the SDK's own client), against the
// loopback Hub: a tool call naming one pulls it through the engine, as the server does, and gives the
// vector /v1/embeddings gives for the locally converted file; --model takes a name; a name the Hub
// lacks is refused in one line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertCheckpoint } from '@jepa/convert';
import { createServer } from '@jepa/server';
import { filesOfFolder, HubServer, REFERENCE } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THREADS, mcpChild, png } from './helpers.js';

const HFVIT = join(REFERENCE, 'hfvit');
const work = mkdtempSync(join(tmpdir(), 'jepa-mcp-hub-'));
const hub = new HubServer();
const image = join(work, 'a.png');
const local = join(work, 'hfvit.gguf');

beforeAll(async () => {
  hub.seed(
    'tiny/hfvit',
    filesOfFolder(HFVIT, (p) => /^(config\.json|preprocessor_config\.json|model\.safetensors)$/.test(p)),
  );
  await hub.start();
  // the child's environment: the loopback Hub and caches of this file's own
  Object.assign(process.env, {
    HF_ENDPOINT: hub.url,
    HF_HUB_CACHE: join(work, 'hf', 'hub'),
    JEPA_CACHE: join(work, 'jepa'),
    HF_TOKEN: '',
    HF_HUB_OFFLINE: '',
  });
  writeFileSync(image, png(20, 16, 7));
  await convertCheckpoint(join(HFVIT, 'model.safetensors'), local);
});

afterAll(async () => {
  await hub.stop();
});

/** The vector /v1/embeddings gives for the locally converted file. */
async function byFile(): Promise<Float32Array> {
  const server = await createServer({ models: [local], port: 0, threads: THREADS, hub: false, allowPaths: [work] });
  try {
    await server.ready;
    const r = await fetch(`${server.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'hfvit', input: [{ path: image }] }),
    });
    expect(r.status).toBe(200);
    return Float32Array.from(((await r.json()) as { data: { embedding: number[] }[] }).data[0]!.embedding);
  } finally {
    await server.close();
  }
}

describe('models by name through jepa mcp', () => {
  it('a tool call naming hf:ORG/NAME pulls it and embeds as the converted file does; a name the Hub lacks is refused', async () => {
    const mcp = await mcpChild(['--root', work]);
    try {
      const before = hub.requests.length;
      const r = await mcp.ok<{ model: string; embedding: number[] }>('embed_image', { model: 'hf:tiny/hfvit', image });
      expect(hub.requests.length).toBeGreaterThan(before);
      expect(r.model).toBe('hf:tiny/hfvit');
      const expected = await byFile();
      expect(Buffer.from(Float32Array.from(r.embedding).buffer).equals(Buffer.from(expected.buffer))).toBe(true);
      // the negative control: the f16 conversion of the same repository gives other bits
      const half = await mcp.ok<{ embedding: number[] }>('embed_image', { model: 'hf:tiny/hfvit:f16', image });
      expect(Buffer.from(Float32Array.from(half.embedding).buffer).equals(Buffer.from(expected.buffer))).toBe(false);
      const models = await mcp.ok<{ models: { id: string }[] }>('list_models');
      expect(models.models.map((m) => m.id).sort()).toEqual(['hf:tiny/hfvit', 'hf:tiny/hfvit:f16']);
      expect(await mcp.refused('embed_image', { model: 'hf:tiny/none', image })).toMatch(
        /^hf:tiny\/none: no such model repository at http:\/\/127\.0\.0\.1:\d+/,
      );
    } finally {
      await mcp.close();
    }
  });

  it('jepa mcp --model hf:ORG/NAME serves it under that name', async () => {
    const mcp = await mcpChild(['--model', 'hf:tiny/hfvit', '--root', work]);
    try {
      const models = await mcp.ok<{ models: { id: string; state: string }[] }>('list_models');
      expect(models.models).toMatchObject([{ id: 'hf:tiny/hfvit', state: 'loaded' }]);
      const r = await mcp.ok<{ model: string; embedding: number[] }>('embed_image', { image });
      expect(r.model).toBe('hf:tiny/hfvit');
    } finally {
      await mcp.close();
    }
  });

  it('list_models names the hf: models the caches hold and no server serves yet', async () => {
    const mcp = await mcpChild(['--root', work]);
    try {
      const listed = await mcp.ok<{ models: unknown[]; cached: { id: string; downloaded: boolean; converted: boolean; family: string | null }[] }>(
        'list_models',
      );
      expect(listed.models).toEqual([]);
      expect(listed.cached).toContainEqual({ id: 'hf:tiny/hfvit', state: 'unloaded', downloaded: true, converted: true, family: 'hfvit' });
      expect(listed.cached.map((c) => c.id)).not.toContain('hf:tiny/none');
    } finally {
      await mcp.close();
    }
  });
});
