// The tools that take words (embed_text, classify, search by text) against a model without a text side
// and an index of its image vectors, through `jepa mcp` behind the SDK's client: each refusal is one
// line naming the model or the index, and list_models says which models take words.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { runCli } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpChild, mcpChild, png, THREADS } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'jepa-mcp-text-'));
const photo = join(dir, 'a.png');
const db = join(dir, 'db');
let mcp: McpChild;

beforeAll(async () => {
  writeFileSync(photo, png(16, 16, 4));
  const model = forgeModel('hfvit', { seed: 3, path: join(dir, 'vit.gguf') }).path;
  const r = runCli(['index', 'add', '--db', db, '-m', model, photo, '-t', String(THREADS)], { env: { JEPA_DEVICE: 'cpu' }, timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  mcp = await mcpChild(['--model', model, '--root', dir, '--index', db]);
}, 120_000);
afterAll(async () => {
  await mcp?.close();
});

describe('words to a model without a text side', () => {
  it('list_models says it takes none, and lists no word tools for it', async () => {
    const { models } = await mcp.ok<{ models: { id: string; text: boolean; tools: string[] }[] }>('list_models');
    expect(models.map((m) => [m.id, m.text])).toEqual([['vit', false]]);
    expect(models[0]!.tools).not.toContain('embed_text');
    expect(models[0]!.tools).not.toContain('classify');
  });

  it('embed_text and classify name the model', async () => {
    expect(await mcp.refused('embed_text', { text: 'a red car' })).toMatch(/^model: vit \(hfvit\) has no text tower/);
    expect(await mcp.refused('classify', { media: photo, labels: ['a dog', 'a cat'] })).toMatch(/^model: vit \(hfvit\) has no text tower/);
  });

  it('search by text names the index and its pooling', async () => {
    expect(await mcp.refused('search', { text: 'a red car' })).toMatch(/^text: the index holds vit\.gguf's "cls" vectors/);
    expect(await mcp.refused('search', { text: 'a', row: 1 })).toMatch(/give one of "query" \(media\), "text" \(words\) or "row"/);
  });

  it('malformed words are refused by name', async () => {
    expect(await mcp.refused('embed_text', { text: [] })).toMatch(/text/);
    expect(await mcp.refused('classify', { media: photo, labels: ['a', ''] })).toMatch(/^labels\[1\]: must not be empty/);
  });
});
