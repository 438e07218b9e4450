// Shared by the MCP tests: `jepa mcp` as a child process behind the SDK's own Client, and a folder
// laid out for the path-escape cases.
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { forgeModel } from '@jepa/gguf';
import { encodeNpy } from '@jepa/preprocess';
import { createServer, type JepaServer } from '@jepa/server';
import { cliMain, DEMO_MODEL, REFERENCE_HEADS, REPO_ROOT, SAMPLE_JPG, SAMPLE_MP4, seededPng } from '@jepa/testing';
import { afterAll, beforeAll, expect } from 'vitest';

export const root = REPO_ROOT;
export const demo = DEMO_MODEL;
export const heads = REFERENCE_HEADS;
export const sampleJpg = SAMPLE_JPG;
export const sampleMp4 = SAMPLE_MP4;
/** The built CLI: a file of these tests fails with "build first" where it has not been built. */
export const cli = cliMain();
export const THREADS = 2;

/** An 8-bit RGB PNG of seeded pixels. */
export const png = seededPng;

/**
 * D/allowed (the root): a.png, goal.png, sample.jpg, sample.mp4, clip.npy, sub/, link-out -> ../outside/secret.png,
 * linkdir -> ../outside; D/allowed_evil/x.png; D/outside/secret.png; D/other/b.png (a second folder for client roots);
 * D/models: the demo model, the forged heads models and a forged ViT with a CLS token (vit.gguf).
 */
export function layout(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), `jepa-mcp-test-${prefix}-`));
  const allowed = join(dir, 'allowed');
  const other = join(dir, 'other');
  const models = join(dir, 'models');
  for (const d of [allowed, join(allowed, 'sub'), join(dir, 'allowed_evil'), join(dir, 'outside'), other, models]) mkdirSync(d, { recursive: true });
  writeFileSync(join(allowed, 'a.png'), png(20, 18, 5));
  writeFileSync(join(allowed, 'goal.png'), png(18, 20, 6));
  copyFileSync(sampleJpg, join(allowed, 'sample.jpg'));
  copyFileSync(sampleMp4, join(allowed, 'sample.mp4'));
  writeFileSync(
    join(allowed, 'clip.npy'),
    encodeNpy(
      Float32Array.from({ length: 3 * 4 * 16 * 16 }, (_, i) => Math.sin(i * 0.7) * 1.5),
      [1, 3, 4, 16, 16],
    ),
  );
  writeFileSync(join(dir, 'allowed_evil', 'x.png'), png(8, 8, 1));
  writeFileSync(join(dir, 'outside', 'secret.png'), png(8, 8, 2));
  writeFileSync(join(other, 'b.png'), png(16, 16, 7));
  symlinkSync(join(dir, 'outside', 'secret.png'), join(allowed, 'link-out'));
  symlinkSync(join(dir, 'outside'), join(allowed, 'linkdir'));
  copyFileSync(demo, join(models, 'demo.gguf'));
  for (const name of ['vjepa2_pooler', 'vjepa2_predictor', 'lewm']) copyFileSync(join(heads, name, 'model.gguf'), join(models, `${name}.gguf`));
  forgeModel('hfvit', { seed: 7, path: join(models, 'vit.gguf') });
  return { dir, allowed, other, models };
}

export interface McpChild {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  /** The structured answer of a call that must succeed. */
  ok: <T = Record<string, unknown>>(name: string, args?: Record<string, unknown>) => Promise<T>;
  /** The one-line message of a call that must fail. */
  refused: (name: string, args?: Record<string, unknown>) => Promise<string>;
  close: () => Promise<void>;
}

/** `jepa mcp ARGS` with the SDK's Client connected; `roots` makes the client offer MCP roots. */
export async function mcpChild(args: string[], opts: { roots?: () => string[] } = {}): Promise<McpChild> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', '-t', String(THREADS), ...args],
    env: { ...(process.env as Record<string, string>), JEPA_DEVICE: 'cpu' },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const client = new Client({ name: 'jepa-test', version: '0' }, { capabilities: opts.roots ? { roots: { listChanged: true } } : {} });
  if (opts.roots) {
    const roots = opts.roots;
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots().map((p) => ({ uri: `file://${p}`, name: p })) }));
  }
  await client.connect(transport);
  const call = async (name: string, a: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: a }, undefined, { timeout: 120_000 })) as CallToolResult;
  return {
    client,
    transport,
    stderr: () => err,
    call,
    ok: async <T>(name: string, a: Record<string, unknown> = {}) => {
      const r = await call(name, a);
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}\n${err}`);
      const text = (r.content[0] as { text: string }).text;
      expect(JSON.parse(text)).toEqual(r.structuredContent);
      return r.structuredContent as T;
    },
    refused: async (name: string, a: Record<string, unknown> = {}) => {
      const r = await call(name, a);
      expect(r.isError, JSON.stringify(r)).toBe(true);
      const text = (r.content[0] as { text: string }).text;
      expect(text).not.toMatch(/\n/);
      return text;
    },
    close: () => client.close(),
  };
}

/** `jepa mcp` over stdio beside an in-process jepa serve on the same models and roots, for one test file. */
export function mcpBesideServer(allowed: string, models: string) {
  let mcp: McpChild | undefined;
  let http: JepaServer | undefined;
  beforeAll(async () => {
    [mcp, http] = await Promise.all([
      mcpChild(['--models-dir', models, '--root', allowed]),
      createServer({ modelsDir: models, allowPaths: [allowed], port: 0, threads: THREADS }),
    ]);
    await http.ready;
  });
  afterAll(async () => {
    await mcp?.close();
    await http?.close();
  });
  return {
    mcp: (): McpChild => mcp!,
    // biome-ignore lint/suspicious/noExplicitAny: the server's JSON, read by path
    async post(route: string, body: unknown): Promise<any> {
      const r = await fetch(`${http!.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = await r.json();
      expect(r.status, JSON.stringify(json)).toBe(200);
      return json;
    },
  };
}
