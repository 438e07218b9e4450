// `jepa` start-up to exit, per CLI build: wall time and peak RSS (through /usr/bin/time) of short
// commands, the builds taking turns in every round; then one run of each under startup-probe.js to
// see whether it loads the HTTP front end's packages.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliBuild, cliLegend, overBaseline, roundOrder } from './cli-builds.js';
import { probeSupported, WATCHED_PACKAGES } from './startup-probe.js';
import { median } from './stats.js';

const TIME = '/usr/bin/time';
const PROBE = new URL('./startup-probe.js', import.meta.url);

export interface StartupOptions {
  clis: CliBuild[];
  model: string;
  image: string;
  threads: number;
  runs: number;
  warmup: number;
}

export interface StartupRow {
  command: string;
  cli: string;
  wallMs: number[];
  peakRssKiB: number[];
  /** The watched packages this command loaded; null where this Node cannot run the probe. */
  loaded: string[] | null;
}

export interface StartupReport {
  clis: CliBuild[];
  runs: number;
  warmup: number;
  rows: StartupRow[];
}

interface Case {
  name: string;
  args: (scratch: string) => string[];
}

function cases(o: StartupOptions): Case[] {
  return [
    { name: 'jepa --help', args: () => ['--help'] },
    {
      name: 'jepa features --pca',
      args: (scratch) => ['features', '--pca', '-m', o.model, '-t', String(o.threads), '-o', join(scratch, 'features.png'), o.image],
    },
  ];
}

/** One run to exit: wall ms as seen from here, and the child's peak RSS in KiB as /usr/bin/time reports it. */
function timedRun(cli: CliBuild, args: string[], scratch: string): { wallMs: number; peakRssKiB: number } {
  const report = join(scratch, 'time.txt');
  const t0 = process.hrtime.bigint();
  const r = spawnSync(TIME, ['-f', '%M', '-o', report, process.execPath, cli.path, ...args], { encoding: 'utf8' });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`CLI ${cli.label} (${cli.path}) ${args.join(' ')} exited ${r.status ?? r.signal}:\n${r.stderr}`);
  const peakRssKiB = Number(readFileSync(report, 'utf8').trim().split('\n').at(-1));
  if (!Number.isFinite(peakRssKiB)) throw new Error(`${TIME} wrote no peak RSS to ${report}`);
  return { wallMs, peakRssKiB };
}

/** The watched packages that one run of the command loads. */
function probedRun(cli: CliBuild, args: string[], scratch: string): string[] {
  const out = join(scratch, 'probe.json');
  rmSync(out, { force: true });
  const r = spawnSync(process.execPath, ['--import', PROBE.href, cli.path, ...args], {
    encoding: 'utf8',
    env: { ...process.env, JEPA_STARTUP_PROBE_OUT: out },
  });
  if (r.status !== 0) throw new Error(`CLI ${cli.label} ${args.join(' ')} under the probe exited ${r.status ?? r.signal}:\n${r.stderr}`);
  return (JSON.parse(readFileSync(out, 'utf8')) as { loaded: string[] }).loaded;
}

export function runStartupBench(o: StartupOptions, log: (s: string) => void): StartupReport {
  if (!existsSync(TIME)) throw new Error(`${TIME} is missing; it measures peak RSS (Debian: apt-get install time)`);
  if (!probeSupported) log(`this Node has no module.registerHooks: which packages load is not measured`);
  const scratch = mkdtempSync(join(tmpdir(), 'jepa-startup-'));
  const rows: StartupRow[] = [];
  try {
    for (const c of cases(o)) {
      const args = c.args(scratch);
      const byCli: StartupRow[] = o.clis.map((cli) => ({ command: c.name, cli: cli.label, wallMs: [], peakRssKiB: [], loaded: null }));
      for (let round = 0; round < o.warmup + o.runs; round++)
        for (const i of roundOrder([...o.clis.keys()], round)) {
          const run = timedRun(o.clis[i]!, args, scratch);
          if (round < o.warmup) continue;
          byCli[i]!.wallMs.push(run.wallMs);
          byCli[i]!.peakRssKiB.push(run.peakRssKiB);
        }
      if (probeSupported) for (const [i, cli] of o.clis.entries()) byCli[i]!.loaded = probedRun(cli, args, scratch);
      for (const row of byCli)
        log(`${row.command}, CLI ${row.cli}: ${median(row.wallMs).toFixed(0)} ms, peak RSS ${(median(row.peakRssKiB) / 1024).toFixed(1)} MiB`);
      rows.push(...byCli);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { clis: o.clis, runs: o.runs, warmup: o.warmup, rows };
}

export function startupMarkdown(r: StartupReport): string {
  const base = r.clis[0]!.label;
  const baseline = (row: StartupRow) => r.rows.find((b) => b.cli === base && b.command === row.command)!;
  const loadedCell = (row: StartupRow) => (row.loaded === null ? 'not measured' : row.loaded.length > 0 ? row.loaded.join(', ') : 'none');
  return [
    `Start-up to exit, medians of ${r.runs} runs per build after ${r.warmup} untimed, the builds taking turns (order reversed every other round). Peak RSS from \`${TIME} -f %M\`; "x ${base}" is the value over CLI ${base}'s; "loads" lists which of ${WATCHED_PACKAGES.join(', ')} one further run resolved.`,
    '',
    cliLegend(r.clis),
    '',
    `| command | cli | wall ms | x ${base} | peak RSS MiB | x ${base} | loads |`,
    '|---|---|---|---|---|---|---|',
    ...r.rows.map((row) => {
      const b = baseline(row);
      const isBase = row.cli === base;
      const wall = median(row.wallMs);
      const rss = median(row.peakRssKiB);
      return `| ${row.command} | ${row.cli} | ${wall.toFixed(0)} | ${overBaseline(wall, median(b.wallMs), isBase)} | ${(rss / 1024).toFixed(1)} | ${overBaseline(rss, median(b.peakRssKiB), isBase)} | ${loadedCell(row)} |`;
    }),
  ].join('\n');
}
