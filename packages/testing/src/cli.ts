// The built CLI (apps/cli/dist/main.js) as a user runs it: a child process of this Node.
import { spawnSync } from 'node:child_process';
import { requireBuilt } from './built.js';
import { CLI_MAIN } from './paths.js';

/** apps/cli/dist/main.js, for tests that spawn it themselves; throws "build first" when it is missing. */
export function cliMain(): string {
  return requireBuilt(CLI_MAIN, 'the jepa CLI');
}

export interface CliRunOptions {
  /** Added to (or, as undefined, removed from) this process's environment. */
  env?: Record<string, string | undefined>;
  /** Written to the CLI's stdin. */
  input?: string | Buffer;
  timeout?: number;
  maxBuffer?: number;
  cwd?: string;
  /** Node options placed before main.js (e.g. ['--import', hook]). */
  nodeArgs?: string[];
}

export interface CliRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node apps/cli/dist/main.js ...args` to completion. */
export function runCli(args: string[], options: CliRunOptions = {}): CliRun {
  const main = cliMain();
  const r = spawnSync(process.execPath, [...(options.nodeArgs ?? []), main, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...options.env },
    ...(options.input !== undefined && { input: options.input }),
    ...(options.timeout !== undefined && { timeout: options.timeout }),
    ...(options.maxBuffer !== undefined && { maxBuffer: options.maxBuffer }),
    ...(options.cwd !== undefined && { cwd: options.cwd }),
  });
  if (r.error && r.status === null && r.signal === null) throw r.error;
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}
