// The stdio server's shutdown runs once: closing the SDK server closes its transport, whose onclose
// asks for the shutdown again from inside the first one, synchronously.
import { PassThrough } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { describe, expect, it } from 'vitest';
import { closeOnce, type Closable } from '../src/close-once.js';

/** How the shutdown was first written: the promise kept only once the first step has returned. */
function keptAfterStart(server: Closable, engine: Closable): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => {
    closing ??= (async () => {
      await server.close().catch(() => {});
      await engine.close();
    })();
    return closing;
  };
}

/** A real McpServer on a real stdio transport, wired as serveStdio wires it; counts the transport's closes. */
async function wired(make: (server: Closable, engine: Closable) => () => Promise<void>) {
  const server = new McpServer({ name: 'close-once', version: '0' });
  const transport = new StdioServerTransport(new PassThrough(), new PassThrough());
  let transportCloses = 0;
  let engineCloses = 0;
  const close = transport.close.bind(transport);
  // past a few, the old shutdown would go on until the stack overflows: stop it there
  transport.close = async () => {
    transportCloses++;
    if (transportCloses <= 5) await close();
  };
  const shutdown = make(server, {
    close: async () => {
      engineCloses++;
    },
  });
  transport.onclose = () => void shutdown();
  await server.connect(transport);
  return { shutdown, counts: () => ({ transportCloses, engineCloses }) };
}

describe('closeOnce', () => {
  it('closes the transport and the engine once, though the transport asks again from inside the close', async () => {
    const { shutdown, counts } = await wired(closeOnce);
    await Promise.all([shutdown(), shutdown()]);
    await new Promise((r) => setTimeout(r, 10));
    expect(counts()).toEqual({ transportCloses: 1, engineCloses: 1 });
  });

  it('negative control: a promise kept after the first step starts a close inside the close, again and again', async () => {
    const { shutdown, counts } = await wired(keptAfterStart);
    await shutdown();
    await new Promise((r) => setTimeout(r, 10));
    expect(counts().transportCloses).toBeGreaterThan(5);
  });
});
