// A real, throwaway redis-server for tests and benchmarks: one per call to RedisServer.start(),
// on a free loopback port, in a fresh temp dir, with the AOF on and fsynced on every write, so a
// test can SIGKILL it, restart it on the same port and dir, and find what it had acknowledged.
// Readiness is a raw `PING` over node:net (no client library). Whatever is still running when the
// test process exits is SIGKILLed and its dir removed.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;
const PORT_ATTEMPTS = 5;
const TAIL_BYTES = 4096;

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/** Servers whose child may still be running or whose dir still exists, for the exit handler. */
const live = new Set<RedisServer>();
let exitHookInstalled = false;
function killAll(): void {
  for (const server of live) server.killSync();
}
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killAll);
  // Vitest stops its fork workers with SIGTERM, which skips 'exit' handlers: clean up, then, if no
  // one else handles SIGTERM, re-raise it so the process still dies as it would have.
  const onSigterm = () => {
    killAll();
    if (process.listenerCount('SIGTERM') === 1) {
      process.off('SIGTERM', onSigterm);
      process.kill(process.pid, 'SIGTERM');
    }
  };
  process.on('SIGTERM', onSigterm);
}

/** A port that was free a moment ago: bind port 0 on loopback, read the port, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close((err) => (err ? reject(err) : port ? resolve(port) : reject(new Error('no port'))));
    });
  });
}

/**
 * One probe on a fresh connection: `PING`, then `INFO server` to read whose server answered.
 * Resolves with the answering server's pid on `+PONG`, or undefined on anything else
 * (refused, -LOADING, a timeout, ...).
 */
function probe(port: number, timeoutMs = 1000): Promise<number | undefined> {
  return new Promise((resolve) => {
    let buf = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      const pid = /\r\nprocess_id:(\d+)\r\n/.exec(buf);
      resolve(buf.startsWith('+PONG\r\n') && pid ? Number(pid[1]) : undefined);
    };
    const socket = createConnection({ host: HOST, port });
    socket.setTimeout(timeoutMs, finish);
    socket.once('error', finish);
    socket.once('close', finish);
    socket.once('connect', () => socket.write('PING\r\nINFO server\r\n'));
    socket.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      if (!'+PONG\r\n'.startsWith(buf.slice(0, 7)))
        finish(); // -LOADING, -ERR, ...
      else if (/\r\nprocess_id:\d+\r\n/.test(buf)) finish();
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitExit(child: ChildProcess): Promise<void> {
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export class RedisServer {
  /** redis://127.0.0.1:PORT */
  readonly url: string;
  private child: ChildProcess | undefined;
  private output = '';
  private removed = false;

  private constructor(
    readonly port: number,
    /** The server's --dir: the AOF lives here (under appendonlydir/). */
    readonly dir: string,
  ) {
    this.url = `redis://${HOST}:${port}`;
  }

  /** Starts a fresh server on a free port in a fresh temp dir; resolves once it answers PING. */
  static async start(): Promise<RedisServer> {
    installExitHook();
    const dir = mkdtempSync(join(tmpdir(), 'jepa-redis-'));
    let lastError: unknown;
    for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
      const server = new RedisServer(await freePort(), dir);
      live.add(server);
      try {
        await server.launch();
        return server;
      } catch (err) {
        await server.kill();
        live.delete(server);
        lastError = err;
        // Only a lost race for the port is worth another port; anything else is a real failure.
        if (!/address already in use/i.test(server.output)) break;
      }
    }
    rmSync(dir, { recursive: true, force: true });
    throw lastError;
  }

  /** The command-line arguments (the same on every start of this server). */
  get args(): string[] {
    return [
      '--port',
      String(this.port),
      '--bind',
      HOST,
      '--protected-mode',
      'yes',
      '--dir',
      this.dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
      '--daemonize',
      'no',
      '--logfile',
      '',
    ];
  }

  /** Whether the redis-server process is running. */
  get running(): boolean {
    return this.child !== undefined && !exited(this.child);
  }

  /** The last few KiB of the server's stdout and stderr, for error messages. */
  get logTail(): string {
    return this.output;
  }

  /** SIGTERM, wait for exit (SIGKILL after 10 s), remove the dir. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child && !exited(child)) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await waitExit(child);
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
    this.removed = true;
    live.delete(this);
  }

  /** SIGKILL (a crash), wait for exit; the dir and its AOF stay for restart(). */
  async kill(): Promise<void> {
    const child = this.child;
    if (child && !exited(child)) {
      child.kill('SIGKILL');
      await waitExit(child);
    }
  }

  /** Starts it again on the same port, dir and arguments, after kill(); resolves once it answers PING. */
  async restart(): Promise<void> {
    if (this.removed) throw new Error(`redis-server on ${this.url} was stopped and its dir removed`);
    if (this.running) throw new Error(`redis-server on ${this.url} is still running; kill() it first`);
    await this.launch();
  }

  /** For the exit handler: SIGKILL without waiting, remove the dir. */
  killSync(): void {
    if (this.child && !exited(this.child)) this.child.kill('SIGKILL');
    if (this.removed) return;
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // the killed server may still be writing into it; a leftover temp dir is harmless
    }
  }

  private async launch(): Promise<void> {
    this.output = '';
    // Where setpriv is (util-linux), the kernel SIGKILLs redis-server when this process dies even
    // by a signal that skips the exit handler; setpriv execs it, so child.pid is redis-server's.
    const [cmd, args] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', 'redis-server', ...this.args]] : ['redis-server', this.args];
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-TAIL_BYTES);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let spawnError: Error | undefined;
    child.once('error', (err) => {
      spawnError = err;
    });
    // Don't let a forgotten server hold the test process open; the exit handler kills it.
    child.unref();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (spawnError) throw new Error(`redis-server could not be spawned: ${spawnError.message}`);
      if (exited(child)) {
        await sleep(20); // let the last of its output arrive
        throw new Error(
          `redis-server on ${this.url} exited (code ${child.exitCode}, signal ${child.signalCode}) ` +
            `before it answered PING; its output:\n${this.output}`,
        );
      }
      // PONG from our own child, not from whatever else may have taken the port meanwhile.
      const pid = await probe(this.port);
      if (pid !== undefined && pid === child.pid) return;
      if (Date.now() > deadline) {
        throw new Error(`redis-server on ${this.url} did not answer PING within ${READY_TIMEOUT_MS} ms; its output:\n${this.output}`);
      }
      await sleep(25);
    }
  }
}
