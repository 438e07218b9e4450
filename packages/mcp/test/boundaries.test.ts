// What jepa mcp refuses and where it stops: each path escape (through the tool and through the check
// itself, with a negative control), the media size limit, no model at all, the client's roots, and a
// stdout that carries nothing but protocol messages.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { isWithin } from '@jepa/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineChunks, Roots, checkMediaSize, mediaItem, messageId } from '../src/index.js';
import { cli, demo, layout, mcpChild, THREADS, type McpChild } from './helpers.js';

const { dir, allowed, other } = layout('bounds');
const at = (name: string) => join(allowed, name);

/** [case, path, what the refusal says] */
const ESCAPES: [string, string, RegExp][] = [
  ['a sibling folder that shares the prefix', join(dir, 'allowed_evil', 'x.png'), /not under an allowed path/],
  ['a symlink that leads out of the root', at('link-out'), /not under an allowed path/],
  ['a file below a parent-folder symlink that leads out', join(at('linkdir'), 'secret.png'), /not under an allowed path/],
  ['a .. component', `${allowed}/../outside/secret.png`, /must not contain '\.\.'/],
  ['a NUL byte', `${at('a.png')}\0.png`, /contains a NUL byte/],
  ['a relative path', 'allowed/a.png', /must be an absolute path/],
  ['a missing file', at('missing.png'), /no such file/],
  ['a folder', at('sub'), /not a regular file/],
];

describe('the path check (PathPolicy, as jepa mcp uses it)', () => {
  let roots: Roots;
  beforeAll(async () => {
    roots = await Roots.create([allowed]);
  });

  it('accepts a file in the root, and refuses every escape', async () => {
    expect(await roots.policy.check('image', at('a.png'))).toBe(at('a.png'));
    for (const [what, path, message] of ESCAPES) await expect(roots.policy.check('image', path), what).rejects.toThrow(message);
  });

  it('negative control: without the separator rule, /allowed_evil would pass as inside /allowed', () => {
    const naive = (root: string, path: string) => path.startsWith(root);
    const evil = join(dir, 'allowed_evil', 'x.png');
    expect(naive(allowed, evil)).toBe(true);
    expect(isWithin(allowed, evil)).toBe(false);
    expect(isWithin(allowed, allowed)).toBe(true);
    expect(isWithin(allowed, `${allowed}${sep}a.png`)).toBe(true);
  });

  it('the client roots replace the command line ones; a list with no usable folder leaves them', async () => {
    const r = await Roots.create([allowed]);
    expect(await r.replace(['https://example.com/', `file://${join(dir, 'nope')}`])).toMatchObject({ applied: false });
    expect(r.paths).toEqual([allowed]);
    const done = await r.replace([`file://${other}`]);
    expect(done.applied).toBe(true);
    expect(r.source).toBe('client');
    await expect(r.policy.check('image', at('a.png'))).rejects.toThrow(/not under an allowed path/);
    expect(await r.policy.check('image', join(other, 'b.png'))).toBe(join(other, 'b.png'));
  });
});

describe('media size', () => {
  it('refuses base64 over the limit from its length, naming the size and the limit', () => {
    const limit = 64 * 2 ** 20;
    const big = 'A'.repeat(100 * 2 ** 20);
    expect(() => checkMediaSize('image', big, limit)).toThrow(
      /^image: 75\.0 MiB of media \(100\.0 MiB of base64\) is over the 64\.0 MiB limit \(--max-media-mb\)$/,
    );
    expect(() => mediaItem('image', { data: big }, limit, 'image', 'image')).toThrow(/over the 64\.0 MiB limit/);
    expect(() => mediaItem('image', `data:image/png;base64,${big}`, limit, 'image', 'image')).toThrow(/over the 64\.0 MiB limit/);
    // from the length alone: text that is not base64 at all gets the size refusal, not a decode error
    expect(() => mediaItem('image', { data: '!'.repeat(100 * 2 ** 20) }, limit, 'image', 'image')).toThrow(/over the 64\.0 MiB limit/);
    expect(() => mediaItem('image', { data: '!!!!' }, limit, 'image', 'image')).not.toThrow(/over the .* limit/);
    expect(checkMediaSize('image', 'AAAA', limit)).toBe('');
    expect(checkMediaSize('image', 'data:video/mp4;base64,AAAA', limit)).toBe('video/mp4');
  });
});

describe('LineChunks', () => {
  it('re-cuts the input at newlines, one chunk per line, whatever the pieces', async () => {
    const cut = new LineChunks();
    const got: string[] = [];
    cut.on('data', (c: Buffer) => got.push(c.toString()));
    for (const piece of ['{"a":', '1}\n{"b"', ':2}\n{"c":3}\n{"d"', ':4}']) cut.write(Buffer.from(piece));
    cut.end();
    await new Promise((done) => cut.once('end', done));
    expect(got).toEqual(['{"a":1}\n', '{"b":2}\n', '{"c":3}\n', '{"d":4}']);
  });
});

describe('jepa mcp with the demo model', () => {
  let mcp: McpChild;
  beforeAll(async () => {
    mcp = await mcpChild(['-m', demo, '--root', allowed, '--max-media-mb', '64']);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('refuses each path escape as a one-line tool error', async () => {
    for (const [what, path, message] of ESCAPES) expect(await mcp.refused('embed_image', { image: path }), what).toMatch(message);
    expect(await mcp.refused('embed_image', { image: join(dir, 'outside', 'secret.png') })).toMatch(
      /^image: not under an allowed path \(--root, or the client's roots\)$/,
    );
    // and a file that is inside works
    expect((await mcp.ok<{ dims: number }>('embed_image', { image: at('a.png') })).dims).toBe(192);
  });

  it('refuses a 100 MB base64 argument with the size and the limit', async () => {
    const msg = await mcp.refused('embed_image', { image: { data: 'A'.repeat(100_000_000) } });
    expect(msg).toMatch(/^image: 71\.5 MiB of media \(95\.4 MiB of base64\) is over the 64\.0 MiB limit \(--max-media-mb\)$/);
  });

  it('refuses bad base64, an empty item and both path and data', async () => {
    expect(await mcp.refused('embed_image', { image: { data: 'not base64!' } })).toMatch(/^image: not valid base64/);
    expect(await mcp.refused('embed_image', { image: { path: at('a.png'), data: 'AAAA' } })).toMatch(/^image: give exactly one of "path" or "data"$/);
    expect(await mcp.refused('embed_image', { image: { data: Buffer.from('not an image').toString('base64') } })).toMatch(/^image/);
  });

  it('answers an unknown tool with a JSON-RPC error or a tool error, never a crash', async () => {
    const r = await mcp.client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      (x) => ({ isError: x.isError === true, text: JSON.stringify(x.content) }),
      (err: Error) => ({ isError: true, text: err.message }),
    );
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/no_such_tool/);
    expect((await mcp.ok<{ dims: number }>('embed_image', { image: at('a.png') })).dims).toBe(192);
  });

  it('logs on stderr', () => {
    expect(mcp.stderr()).toMatch(/jepa: model: jepa-demo-vjepa2-untrained: .* loaded in/);
  });
});

describe('a message over --max-message-mb', () => {
  it('is dropped as it streams in and answered with a JSON-RPC error naming its size; the session goes on', async () => {
    expect(messageId('{"method":"tools/call","params":{"a":', ',"jsonrpc":"2.0","id":17}\n')).toBe(17);
    expect(messageId('{"jsonrpc":"2.0","id":"x-1","method":"tools/call"', '"b":{"id":3}}}')).toBe('x-1');
    expect(messageId('{"method":"x","params":{"id":3}}', '"params":{"id":3}}')).toBeNull();
    const mcp = await mcpChild(['--max-message-mb', '1']);
    try {
      const err = await mcp.client.callTool({ name: 'embed_image', arguments: { image: { data: 'A'.repeat(2 * 2 ** 20) } } }).then(
        () => null,
        (e: Error) => e.message,
      );
      expect(err).toMatch(/the message is 2\.0 MiB, over the 1\.0 MiB limit \(--max-message-mb\)/);
      expect(await mcp.ok('list_models')).toMatchObject({ models: [], cached: expect.any(Array) });
      expect(mcp.stderr()).toMatch(/over the 1\.0 MiB limit \(--max-message-mb\); dropped/);
    } finally {
      await mcp.close();
    }
  });
});

describe('jepa mcp with no model at all', () => {
  it('answers initialize, tools/list and list_models (empty); a tool that needs one says so', async () => {
    const mcp = await mcpChild([]);
    try {
      const tools = await mcp.client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual([
        'classify',
        'classify_video',
        'compare',
        'embed_image',
        'embed_text',
        'embed_video',
        'list_models',
        'plan',
        'predict_latents',
        'search',
      ]);
      for (const t of tools.tools) expect(t.outputSchema, t.name).toBeDefined();
      expect(await mcp.ok('list_models')).toMatchObject({ models: [], cached: expect.any(Array) });
      expect(await mcp.refused('embed_image', { image: at('a.png') })).toMatch(/^model: no models are loaded/);
    } finally {
      await mcp.close();
    }
  });
});

describe("the client's roots", () => {
  it('replace --root after initialization and again on roots/list_changed', async () => {
    let roots = [other];
    const mcp = await mcpChild(['-m', demo, '--root', allowed], { roots: () => roots });
    try {
      expect((await mcp.ok<{ dims: number }>('embed_image', { image: join(other, 'b.png') })).dims).toBe(192);
      expect(await mcp.refused('embed_image', { image: at('a.png') })).toMatch(/not under an allowed path/);
      roots = [allowed];
      await mcp.client.sendRootsListChanged();
      let ok = false;
      for (let i = 0; i < 50 && !ok; i++) {
        ok = !(await mcp.call('embed_image', { image: at('a.png') })).isError;
        if (!ok) await new Promise((r) => setTimeout(r, 100));
      }
      expect(ok).toBe(true);
      expect(await mcp.refused('embed_image', { image: join(other, 'b.png') })).toMatch(/not under an allowed path/);
    } finally {
      await mcp.close();
    }
  });
});

describe('stdout', () => {
  it('carries only JSON-RPC messages (console.log of a library goes to stderr), model loading and a tool call included; an unknown method is a JSON-RPC error', async () => {
    // a library that prints with console.log every 50 ms once the command has started (its first jepa: line)
    const noisy = join(dir, 'noisy.cjs');
    writeFileSync(
      noisy,
      [
        'const write = process.stderr.write.bind(process.stderr);',
        'let on = false;',
        'process.stderr.write = (...a) => {',
        "  if (!on && String(a[0]).startsWith('jepa: ')) {",
        '    on = true;',
        "    console.log('noise from a library');",
        "    setInterval(() => console.log('noise from a library'), 50).unref();",
        '  }',
        '  return write(...a);',
        '};',
        '',
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['-r', noisy, cli, 'mcp', '-m', demo, '--root', allowed, '-t', String(THREADS)], {
      env: { ...process.env, JEPA_DEVICE: 'cpu' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const waitFor = async (id: number) => {
      for (let i = 0; i < 600; i++) {
        const line = out.split('\n').find((l) => l.includes(`"id":${id}`));
        if (line) return JSON.parse(line);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no answer ${id}: ${out}\n${err}`);
    };
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    expect((await waitFor(1)).result.serverInfo.name).toBe('jepa');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'embed_image', arguments: { image: at('a.png') } } });
    expect((await waitFor(2)).result.isError).toBeFalsy();
    send({ jsonrpc: '2.0', id: 3, method: 'no/such/method', params: {} });
    expect((await waitFor(3)).error.code).toBe(-32601);
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'embed_image', arguments: { image: 42 } } });
    const bad = await waitFor(4);
    // SDK 1.32.2 answers a schema mismatch as a tool error, one line
    expect(bad.result?.isError, JSON.stringify(bad)).toBe(true);
    expect(bad.result.content[0].text).toMatch(/^MCP error -32602: Input validation error: Invalid arguments for tool embed_image: [^\n]*image$/);
    child.stdin.end();
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code, err).toBe(0);
    const lines = out.split('\n').filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) expect(JSON.parse(line).jsonrpc, line).toBe('2.0');
    expect(err).toMatch(/jepa: model: /);
    expect(err).toMatch(/noise from a library/);
  });
});
