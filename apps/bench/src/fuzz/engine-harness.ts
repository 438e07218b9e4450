// Runs files through the engine in a child process under a wall-clock and a memory limit. The child
// is kept between files (a fresh one costs about a second) and replaced after any file that kills it,
// outlives its limit or grows it past the budget; those are findings the child cannot report itself.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ChildOutcome, ChildRequest } from './engine-child.js';

export interface HarnessOptions {
  /** Per-file wall clock, load included (default 30 s); past it the file is a hang. */
  timeoutMs?: number;
  /**
   * The engine's compute deadline of each graph call in the child (default 5 s): a graph the file
   * makes too big to finish ends as a TIMEOUT refusal; what the deadline cannot stop is a hang.
   */
  computeMs?: number;
  /** Resident memory of the child past which a file is a finding (default 1024 MiB). */
  memoryMib?: number;
  /** Environment of the child, beside the engine's budgets set below. */
  env?: NodeJS.ProcessEnv;
  /** The child's script (default: the built engine-child.js beside this file). */
  childPath?: string;
}

export type FileOutcome =
  | Exclude<ChildOutcome, { status: 'finding' }>
  | { status: 'finding'; kind: 'nan' | 'error' | 'crash' | 'hang' | 'memory'; stage: string; detail: string };

const CHILD = fileURLToPath(new URL('./engine-child.js', import.meta.url));

/** The engine's own budgets in the child, low enough that a legitimate refusal comes well before the memory limit. */
export const CHILD_BUDGETS = { JEPA_MAX_GRAPH_MIB: '256', JEPA_MAX_INPUT_MIB: '64' };

function rssMib(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export class EngineHarness {
  readonly timeoutMs: number;
  readonly memoryMib: number;
  readonly computeMs: number;
  #child: ChildProcess | undefined;
  #ready: Promise<void> | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #childPath: string;
  /** Children started so far (the first, and one after each file that killed or was killed). */
  restarts = 0;
  peakRssMib = 0;

  constructor(options: HarnessOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.computeMs = options.computeMs ?? 5_000;
    this.memoryMib = options.memoryMib ?? 1024;
    this.#env = { ...process.env, ...CHILD_BUDGETS, ...options.env };
    this.#childPath = options.childPath ?? CHILD;
  }

  #start(): Promise<void> {
    const child = fork(this.#childPath, [], { env: this.#env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
    child.stderr?.resume();
    this.#child = child;
    this.restarts++;
    this.#ready = new Promise((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code, signal) => reject(new Error(`the fuzz child exited before it was ready (${signal ?? code})`)));
    });
    return this.#ready;
  }

  #kill(): void {
    const child = this.#child;
    this.#child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  /** Runs one file; never throws for what the file does, only if the child cannot start. */
  async run(req: Omit<ChildRequest, 'computeMs'>): Promise<FileOutcome & { ms: number; rssMib: number }> {
    if (!this.#child) await this.#start();
    else await this.#ready;
    const child = this.#child!;
    const stderr: string[] = [];
    const onErr = (b: Buffer) => {
      if (stderr.join('').length < 8192) stderr.push(b.toString());
    };
    child.stderr?.on('data', onErr);
    const t0 = performance.now();
    let peak = 0;
    const outcome = await new Promise<FileOutcome>((resolve) => {
      const done = (o: FileOutcome) => {
        clearTimeout(timer);
        clearInterval(poll);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(o);
      };
      const onMessage = (o: ChildOutcome) => done(o);
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        done({
          status: 'finding',
          kind: 'crash',
          stage: 'unknown',
          detail: `the child died (${signal ?? `exit ${code}`})\n${stderr.join('').slice(-4000)}`,
        });
      const timer = setTimeout(() => {
        this.#kill();
        done({ status: 'finding', kind: 'hang', stage: 'unknown', detail: `no answer within ${this.timeoutMs} ms` });
      }, this.timeoutMs);
      const poll = setInterval(() => {
        const rss = rssMib(child.pid!);
        peak = Math.max(peak, rss);
        if (rss > this.memoryMib) {
          this.#kill();
          done({
            status: 'finding',
            kind: 'memory',
            stage: 'unknown',
            detail: `resident memory ${rss.toFixed(0)} MiB, past the ${this.memoryMib} MiB budget`,
          });
        }
      }, 20);
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ ...req, computeMs: this.computeMs });
    });
    child.stderr?.off('data', onErr);
    if (outcome.status === 'finding' && (outcome.kind === 'crash' || outcome.kind === 'hang' || outcome.kind === 'memory')) this.#kill();
    this.peakRssMib = Math.max(this.peakRssMib, peak);
    return { ...outcome, ms: performance.now() - t0, rssMib: peak };
  }

  close(): void {
    this.#kill();
  }
}
