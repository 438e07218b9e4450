/**
 * Measures `jepa info` refusing each giant hostile case at its real size: peak RSS and wall time from
 * `/usr/bin/time -f '%M %e' node apps/cli/dist/main.js info --no-tensors FILE`, against the same command on a valid
 * forged model (the baseline), and the same refusal timed in-process (loadModelSpec, without Node's and the
 * CLI's start-up). Each file is written, measured (best of --runs) and deleted before the next, so the
 * disk holds at most one (≤ 1.2 GB) at a time. Prints a markdown table (docs/hardening.md).
 *   pnpm --filter @jepa/gguf measure:hostile [--dir DIR] [--runs 3] [--only NAME[,NAME]]
 * Needs the built CLI (pnpm build). Not a test: it writes about 6 GB in all.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GgufError } from '../src/errors.js';
import { forgeModelBytes } from '../src/forge/forge.js';
import { loadModelSpec } from '../src/validate/validate-model.js';
import { cliOptions, positiveNumber } from './args.js';
import { HOSTILE_CASES, writeParts, type Outcome } from './hostile-cases.js';

const opts = cliOptions({
  dir: { type: 'string', default: '' },
  runs: { type: 'string', default: '3' },
  only: { type: 'string', default: '' },
});
const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const cli = join(root, 'apps/cli/dist/main.js');
const dir = resolve(opts.dir || join(root, 'tmp/hostile-measure'));
const runs = positiveNumber('runs', opts.runs);
const only = new Set(opts.only.split(',').filter(Boolean));
mkdirSync(dir, { recursive: true });

interface Run {
  kib: number;
  secs: number;
  status: number | null;
  stderr: string;
}

function timeInfo(file: string): Run {
  const r = spawnSync('/usr/bin/time', ['-f', '%M %e', process.execPath, cli, 'info', '--no-tensors', file], { encoding: 'utf8' });
  // time's own lines: 'Command exited with non-zero status N', then '%M %e'
  const lines = r.stderr
    .trimEnd()
    .split('\n')
    .filter((l) => !l.startsWith('Command exited with non-zero status'));
  const [kib, secs] = lines.pop()!.split(' ').map(Number);
  return { kib, secs, status: r.status, stderr: lines.join('\n') };
}

function best(file: string): Run {
  const all = Array.from({ length: runs }, () => timeInfo(file));
  return all.reduce((a, b) => (b.secs < a.secs ? b : a));
}

const mb = (kib: number) => (kib / 1024).toFixed(0);
const baseFile = join(dir, 'baseline-valid.gguf');
writeParts(baseFile, [forgeModelBytes('ijepa').bytes]);
const base = best(baseFile);
rmSync(baseFile);
if (base.status !== 0) throw new Error(`baseline info failed: ${base.stderr}`);
const node = execFileSync(process.execPath, ['--version'], { encoding: 'utf8' }).trim();
console.log(`node ${node}; baseline (valid forged ijepa): ${mb(base.kib)} MB peak RSS, ${base.secs.toFixed(2)} s; best of ${runs}\n`);
console.log('| case | file size | peak RSS (MB) | above baseline (MB) | time (s) | loadModelSpec in-process (ms) | exit | refusal |');
console.log('|---|---:|---:|---:|---:|---:|---:|---|');
let failed = false;
for (const c of HOSTILE_CASES) {
  if (!c.giant || (only.size > 0 && !only.has(c.name))) continue;
  const file = join(dir, `${c.name}.gguf`);
  let size = 0;
  let r: Run;
  let inProcessMs = Infinity;
  try {
    size = writeParts(file, c.build('real'));
    r = best(file);
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      try {
        loadModelSpec(file);
      } catch (e) {
        if (!(e instanceof GgufError)) throw e;
      }
      inProcessMs = Math.min(inProcessMs, performance.now() - t0);
    }
  } finally {
    rmSync(file, { force: true });
  }
  const line = r.stderr.split('\n').filter(Boolean);
  const ok =
    c.expect === 'loads'
      ? r.status === 0
      : r.status === 2 && line.length === 1 && (c.expect as Outcome).message.test(line[0].replace(/^jepa: /, '').replace(`${file}: `, ''));
  if (!ok) failed = true;
  const above = (r.kib - base.kib) / 1024;
  const shown = c.expect === 'loads' ? '(loads)' : (line[0] ?? '').replace(`${file}: `, '').replace(/\|/g, '\\|');
  console.log(
    `| ${c.name} | ${(size / 1e6).toFixed(0)} MB | ${mb(r.kib)} | ${above.toFixed(0)} | ${r.secs.toFixed(2)} | ${inProcessMs.toFixed(1)} | ${r.status}${ok ? '' : ' ✗'} | ${shown} |`,
  );
}
process.exitCode = failed ? 1 : 0;
