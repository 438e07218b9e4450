// `jepa mcp` as a client sees it: the round trip of one embed_image tools/call (the SDK's Client over
// stdio to `jepa mcp` in a child process, on the demo model), for a path under the root and for the
// same image as a data: URI, taking turns; p50 / p90 over N sequential calls each after a few untimed ones.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliMain } from './bins.js';
import { median } from './stats.js';

export interface McpBenchOptions {
  model: string;
  image: string;
  calls: number;
  warmup: number;
  threads: number;
}

export interface McpRow {
  input: 'path' | 'data URI';
  calls: number;
  p50Ms: number;
  p90Ms: number;
  minMs: number;
  maxMs: number;
}

export interface McpReport {
  model: string;
  image: string;
  imageBytes: number;
  threads: number;
  rows: McpRow[];
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return sorted[Math.max(0, i)]!;
}

export async function runMcpBench(o: McpBenchOptions, log: (s: string) => void): Promise<McpReport> {
  const model = resolve(o.model);
  const image = resolve(o.image);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliMain(), 'mcp', '-m', model, '--root', dirname(image), '-t', String(o.threads)],
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  const client = new Client({ name: 'jepa-bench', version: '0' });
  await client.connect(transport);
  const bytes = readFileSync(image);
  const inputs: [McpRow['input'], unknown][] = [
    ['path', image],
    ['data URI', `data:image/${image.endsWith('.png') ? 'png' : 'jpeg'};base64,${bytes.toString('base64')}`],
  ];
  const rows: McpRow[] = [];
  const call = async (arg: unknown) => {
    const r = await client.callTool({ name: 'embed_image', arguments: { image: arg } });
    if (r.isError) throw new Error(`embed_image failed: ${JSON.stringify(r.content)}`);
  };
  try {
    for (let i = 0; i < o.warmup; i++) for (const [, arg] of inputs) await call(arg);
    // the two inputs take turns, so a change in the machine's load falls on both
    const ms: number[][] = inputs.map(() => []);
    for (let i = 0; i < o.calls; i++)
      for (const [k, [, arg]] of inputs.entries()) {
        const t0 = process.hrtime.bigint();
        await call(arg);
        ms[k]!.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    for (const [k, [input]] of inputs.entries()) {
      const sorted = [...ms[k]!].sort((a, b) => a - b);
      const row = {
        input,
        calls: o.calls,
        p50Ms: median(sorted),
        p90Ms: quantile(sorted, 0.9),
        minMs: sorted[0]!,
        maxMs: sorted[sorted.length - 1]!,
      };
      log(`${input}: p50 ${row.p50Ms.toFixed(2)} ms, p90 ${row.p90Ms.toFixed(2)} ms over ${o.calls} calls`);
      rows.push(row);
    }
  } finally {
    // the transport's close waits on unref'd timers: keep the process alive until it is done
    const keep = setInterval(() => {}, 1000);
    await client.close();
    clearInterval(keep);
  }
  return { model: o.model, image: o.image, imageBytes: bytes.length, threads: o.threads, rows };
}

export function mcpMarkdown(r: McpReport): string {
  return [
    `embed_image round trips through \`jepa mcp\` (SDK Client over stdio, one call at a time, the two inputs taking turns), ${r.model}, ${r.image} (${r.imageBytes} bytes), ${r.threads} threads.`,
    '',
    '| image given as | calls | p50 ms | p90 ms | min ms | max ms |',
    '|---|---|---|---|---|---|',
    ...r.rows.map(
      (x) => `| ${x.input} | ${x.calls} | ${x.p50Ms.toFixed(2)} | ${x.p90Ms.toFixed(2)} | ${x.minMs.toFixed(2)} | ${x.maxMs.toFixed(2)} |`,
    ),
  ].join('\n');
}
