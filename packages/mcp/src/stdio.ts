// jepa mcp on stdio: stdout carries the protocol and nothing else. Anything else written to
// process.stdout (console.log of any library included) goes to stderr; the transport writes to fd 1
// through a stream of its own.
import { Transform, type TransformCallback, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpTools, type ToolsOptions } from './mcp-tools.js';
import { createMcpServer } from './mcp-server.js';
import { closeOnce } from './close-once.js';

type Write = typeof process.stdout.write;

export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 2 ** 20;

/**
 * A stream onto the real stdout for the protocol; from now on process.stdout.write (and so
 * console.log) writes to stderr. Returns the stream.
 */
export function takeStdout(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout) as (chunk: Uint8Array, done: (err?: Error | null) => void) => boolean;
  const toStderr = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, done) {
      write(chunk, (err) => done(err ?? null));
    },
  });
  stdout.write = ((...args: unknown[]) => toStderr(...args)) as Write;
  return protocol;
}

/** What LineChunks saw of a line over its limit: its length, its first and last few KiB. */
export interface Oversize {
  bytes: number;
  head: string;
  tail: string;
}

const KEEP = 4096;

/**
 * The input re-cut at newlines, one chunk per JSON-RPC line: the transport appends each chunk to
 * its buffer and scans it for a newline, which for a long message (a large base64 argument arrives
 * in 64 KiB pieces) would copy and scan it again on every piece. A line longer than `maxLine` is not
 * kept: its bytes are dropped as they come and `onOversize` hears of it at its end (the transport
 * itself would close the session on it).
 */
export class LineChunks extends Transform {
  readonly #parts: Buffer[] = [];
  #length = 0;
  #dropping = false;
  #head = Buffer.alloc(0);
  #tail = Buffer.alloc(0);

  constructor(
    readonly maxLine = Number.POSITIVE_INFINITY,
    readonly onOversize: (line: Oversize) => void = () => {},
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl < 0 ? chunk.length : nl + 1;
      this.#add(chunk.subarray(start, end));
      if (nl < 0) break;
      this.#endLine();
      start = end;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.#length > 0) this.#endLine();
    done();
  }

  #add(piece: Buffer): void {
    this.#length += piece.length;
    if (!this.#dropping && this.#length > this.maxLine) {
      this.#dropping = true;
      this.#parts.push(piece);
      this.#head = Buffer.concat(this.#parts, Math.min(KEEP, this.#length));
      this.#parts.length = 0;
    }
    if (this.#dropping) this.#tail = Buffer.concat([this.#tail, piece]).subarray(-KEEP);
    else this.#parts.push(piece);
  }

  #endLine(): void {
    if (this.#dropping) this.onOversize({ bytes: this.#length, head: this.#head.toString('latin1'), tail: this.#tail.toString('latin1') });
    else this.push(this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts));
    this.#parts.length = 0;
    this.#length = 0;
    this.#dropping = false;
    this.#head = Buffer.alloc(0);
    this.#tail = Buffer.alloc(0);
  }
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;

/** The id of a JSON-RPC request from the start or the end of its text (where the SDK's clients put it), or null. */
export function messageId(head: string, tail: string): string | number | null {
  const m =
    new RegExp(`"id"\\s*:\\s*${ID}\\s*\\}\\s*$`).exec(tail) ??
    new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID}`).exec(head);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return null;
  }
}

export interface StdioOptions extends ToolsOptions {
  /** Longest JSON-RPC message read (default 256 MiB); a longer one is answered with a JSON-RPC error. */
  maxMessageBytes?: number;
  /** Where the log lines go (default: stderr, `jepa: ` in front). */
  log?: (line: string) => void;
}

export interface RunningMcp {
  engine: McpTools;
  /** Settles when the client has gone (stdin closed) and the models are disposed. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Starts the MCP server on this process's stdin and stdout; the models load meanwhile (calls wait for them). */
export async function serveStdio(options: StdioOptions = {}): Promise<RunningMcp> {
  const log = options.log ?? ((line: string) => process.stderr.write(`jepa: ${line}\n`));
  const out = takeStdout();
  const engine = await McpTools.create({ ...options, log });
  const server = createMcpServer(engine, { log });
  const maxMessage = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
  const lines = new LineChunks(maxMessage, (line) => {
    const id = messageId(line.head, line.tail);
    const message = `the message is ${mib(line.bytes)}, over the ${mib(maxMessage)} limit (--max-message-mb)`;
    log(`${message}; dropped${id === null ? ' (no request id found in it)' : ''}`);
    if (id !== null) out.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message } })}\n`);
  });
  const transport = new StdioServerTransport(process.stdin.pipe(lines), out, { maxBufferSize: maxMessage + 2 });
  const close = closeOnce(server, engine);
  const closed = new Promise<void>((done) => {
    const finish = () => void close().then(done);
    process.stdin.once('end', finish);
    process.stdin.once('close', finish);
    transport.onclose = finish;
  });
  await server.connect(transport);
  return { engine, closed, close };
}
