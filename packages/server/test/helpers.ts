// Shared by the server tests: small PNGs, a real server per test file, raw sockets, the CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliMain, DEMO_MODEL, REFERENCE_HEADS, REPO_ROOT, requireBuilt, runCli, SAMPLE_JPG, SAMPLE_MP4, seededPng, WEB_DIST } from '@jepa/testing';
import { createServer, type JepaServer, type ServerOptions } from '../src/index.js';

export const root = REPO_ROOT;
export const demo = DEMO_MODEL;
export const heads = REFERENCE_HEADS;
export const sampleJpg = SAMPLE_JPG;
export const sampleMp4 = SAMPLE_MP4;
export const THREADS = 2;

export function tmp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `jepa-server-test-${prefix}-`));
}

/** An 8-bit RGB PNG of seeded pixels. */
export const png = seededPng;

/** The built page (packages/server/dist/web, what the server serves at /); "build first" where a file is missing. */
export function requireWebPage(): void {
  for (const file of ['index.html', 'app.js', 'app.css']) requireBuilt(join(WEB_DIST, file), 'the web page');
}

export async function startServer(options: ServerOptions): Promise<JepaServer> {
  const server = await createServer({ port: 0, threads: THREADS, ...options });
  await server.ready;
  return server;
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: whatever JSON the server sent; the tests read it by path (r.json.error.code)
  json: any;
}

export async function post(server: { url: string }, route: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const r = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, json: text ? JSON.parse(text) : null };
}

export async function get(server: { url: string }, route: string, headers: Record<string, string> = {}): Promise<Answer & { text: string }> {
  const r = await fetch(`${server.url}${route}`, { headers });
  const text = await r.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // /metrics is text
  }
  return { status: r.status, headers: r.headers, json, text };
}

/** Writes raw bytes to the server and returns what comes back before it closes (or after `waitMs`). */
export function rawRequest(server: { port: number }, bytes: string | Buffer, opts: { halfClose?: boolean; waitMs?: number } = {}): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(server.port, '127.0.0.1');
    const got: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      done(Buffer.concat(got).toString('latin1'));
    }, opts.waitMs ?? 10_000);
    socket.on('data', (d) => got.push(d));
    socket.on('error', (err) => {
      clearTimeout(timer);
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET') done(Buffer.concat(got).toString('latin1'));
      else fail(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      done(Buffer.concat(got).toString('latin1'));
    });
    socket.write(bytes, () => {
      if (opts.halfClose) socket.end();
    });
  });
}

export function statusOf(response: string): number {
  const m = /^HTTP\/1\.1 (\d{3})/.exec(response);
  return m ? Number(m[1]) : 0;
}

/** Runs the CLI to completion. */
export function jepa(...args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

export interface ServeChild {
  child: ChildProcess;
  url: string;
  port: number;
  stderr: () => string;
  exit: Promise<number | null>;
}

/** `jepa serve` as a child process, once it says it is ready. */
export function serveChild(args: string[], opts: { nodeFlags?: string[]; env?: Record<string, string> } = {}): Promise<ServeChild> {
  const child = spawn(process.execPath, [...(opts.nodeFlags ?? []), cliMain(), 'serve', '--port', '0', ...args], {
    env: { ...process.env, JEPA_DEVICE: 'cpu', ...opts.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`jepa serve did not start:\n${err}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /ready: (http:\/\/127\.0\.0\.1:(\d+))/.exec(err);
      if (m) {
        clearTimeout(timer);
        done({ child, url: m[1]!, port: Number(m[2]), stderr: () => err, exit });
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      fail(new Error(`jepa serve exited with ${code}:\n${err}`));
    });
  });
}

export function vmRssKiB(pid: number, read: (path: string) => string): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`));
  if (!m) throw new Error('no VmRSS');
  return Number(m[1]);
}

/** f32 bits of a base64 embedding, or of JSON numbers rounded to float32. */
export function f32(embedding: string | number[]): Float32Array {
  if (typeof embedding === 'string') {
    const b = Buffer.from(embedding, 'base64');
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  }
  return Float32Array.from(embedding);
}

export function sameBits(a: Float32Array, b: Float32Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}
