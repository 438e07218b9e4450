// Several builds of the `jepa` command line measured in one run (`--cli a/main.js,b/main.js`): each
// gets a letter, the first is the baseline the others are divided by.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cliMain } from './bins.js';

export interface CliBuild {
  /** A, B, C... in the order given. */
  label: string;
  /** The absolute path of the build's main.js. */
  path: string;
}

/** The builds named by --cli (paths to apps/cli/dist/main.js of each checkout), or this checkout's own. */
export function cliBuilds(paths: string[] | undefined): CliBuild[] {
  const given = paths && paths.length > 0 ? paths : [cliMain()];
  if (given.length > 26) throw new Error(`--cli: at most 26 builds, got ${given.length}`);
  return given.map((p, i) => {
    const path = resolve(p);
    if (!existsSync(path)) throw new Error(`--cli ${p}: no such file (give the main.js of a built apps/cli, e.g. apps/cli/dist/main.js)`);
    return { label: String.fromCharCode(65 + i), path };
  });
}

/** The builds in the order of round `round`: forward on even rounds, backward on odd ones, so neither always goes first. */
export function roundOrder<T>(items: T[], round: number): T[] {
  return round % 2 === 0 ? items : [...items].reverse();
}

/** `CLI A: path` lines naming each build. */
export function cliLegend(builds: CliBuild[]): string {
  return builds.map((b) => `- CLI ${b.label}: \`${b.path}\``).join('\n');
}

/** value / baseline to two places, or an empty cell for the baseline itself. */
export function overBaseline(value: number, baseline: number, isBaseline: boolean): string {
  return isBaseline ? '' : (value / baseline).toFixed(2);
}
