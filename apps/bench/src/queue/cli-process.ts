// The jepa CLI as a user runs it, in child processes: commands that run to the end, and workers
// that run until they are told to stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { cliMain } from '../bins.js';

const cli = cliMain();

/** Runs `jepa ARGS…` to its end; resolves with its stderr, rejects on a non-zero exit. */
export function jepa(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? done(err) : fail(new Error(`jepa ${args.slice(0, 2).join(' ')} exited ${code}:\n${err.slice(-2000)}`)),
    );
  });
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the worker has stopped (after SIGTERM, its current job done). */
  stop: () => Promise<void>;
}

/** Starts `jepa worker ARGS…` and resolves once it has loaded its model and is taking jobs. */
export function startWorker(args: string[], log: (s: string) => void): Promise<WorkerProcess> {
  return new Promise((ready, fail) => {
    const child = spawn(process.execPath, [cli, 'worker', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    let started = false;
    const exited = new Promise<void>((r) => child.on('close', () => r()));
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (!started && err.includes('jepa: worker on ')) {
        started = true;
        const stop = () => {
          child.kill('SIGTERM');
          return exited;
        };
        ready({ child, stop });
      }
    });
    child.on('error', fail);
    child.on('close', (code) => {
      if (!started) fail(new Error(`jepa worker exited ${code} before taking jobs:\n${err.slice(-2000)}`));
      else if (code !== 0) log(`a worker exited ${code}:\n${err.slice(-1000)}`);
    });
  });
}
