// `jepa serve` in a child process on loopback, on any free port: resolved once it says it is ready.
import { type ChildProcess, spawn } from 'node:child_process';
import type { CliBuild } from './cli-builds.js';

export interface Served {
  url: string;
  pid: number;
  stop: () => Promise<number | null>;
}

/** A started `jepa serve` child's address, once its stderr says `ready: URL`; rejects with its stderr when it exits first. */
export function readyUrl(child: ChildProcess, name: string): Promise<{ url: string; exit: Promise<number | null> }> {
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let err = '';
  return new Promise((done, fail) => {
    const listen = (d: Buffer) => {
      err += d.toString();
      const m = /ready: (http:\/\/\S+)/.exec(err);
      if (!m) return;
      child.stderr!.off('data', listen);
      child.stderr!.resume();
      done({ url: m[1]!, exit });
    };
    child.stderr!.on('data', listen);
    void exit.then((code) => fail(new Error(`${name} exited (${code}) before it was ready:\n${err}`)));
  });
}

/** Starts `jepa serve --port 0 ...args` of the build `cli`; rejects with its stderr when it exits before it is ready. */
export async function serve(cli: CliBuild, args: string[], log: (s: string) => void): Promise<Served> {
  const child = spawn(process.execPath, [cli.path, 'serve', '--port', '0', '--max-queue', '4096', '--request-timeout', '10m', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const { url, exit } = await readyUrl(child, 'jepa serve');
  log(`jepa serve ${args.join(' ')}: ${url}`);
  return {
    url,
    pid: child.pid!,
    stop: () => {
      child.kill('SIGTERM');
      return exit;
    },
  };
}
