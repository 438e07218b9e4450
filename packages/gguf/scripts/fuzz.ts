/**
 * Deterministic mutation fuzzer over the GGUF reader + jepa validator.
 *   pnpm fuzz:gguf --seconds 60 --seed 7 [--inputs N] [--out fuzz-findings]
 * Every input must load or be refused with a GgufError; anything else (and any input over 2 s, or one that made the
 * reader read more than the file plus one header window) is written to --out as <kind>-<index>-<mutator>.gguf with a
 * .txt beside it, and the exit code is 1. Same seed, same inputs: replay by re-running with the seed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runFuzz } from '../src/fuzz/campaign.js';
import { cliOptions, positiveNumber } from './args.js';

const opts = cliOptions({
  seconds: { type: 'string', default: '10' },
  seed: { type: 'string', default: '1' },
  inputs: { type: 'string' },
  out: { type: 'string', default: 'fuzz-findings' },
});
const out = resolve(process.env.INIT_CWD ?? process.cwd(), opts.out);
const seed = positiveNumber('seed', opts.seed);
const seconds = positiveNumber('seconds', opts.seconds);
const t0 = performance.now();
const stats = runFuzz({
  seed,
  seconds,
  ...(opts.inputs !== undefined ? { inputs: positiveNumber('inputs', opts.inputs) } : {}),
  onFinding(f) {
    mkdirSync(out, { recursive: true });
    const base = join(out, `${f.kind}-${f.index}-${f.mutator}`);
    writeFileSync(`${base}.gguf`, f.bytes);
    writeFileSync(`${base}.txt`, `seed ${seed} input ${f.index} (${f.mutator})\n${f.detail}\n`);
    console.error(`finding: ${f.kind} at input ${f.index} (${f.mutator}) -> ${base}.gguf`);
  },
});
const secs = (performance.now() - t0) / 1000;
console.log(
  `fuzz:gguf seed ${seed}: ${stats.inputs} inputs in ${secs.toFixed(1)} s (${(stats.inputs / secs).toFixed(0)}/s), ` +
    `${stats.loaded} loaded, ${stats.inputs - stats.loaded - stats.findings.filter((f) => f.kind === 'crash').length} refused, ` +
    `${stats.findings.length} findings, slowest input ${stats.maxInputMs.toFixed(1)} ms`,
);
console.log('refusals by code:', JSON.stringify(stats.refused));
process.exitCode = stats.findings.length > 0 ? 1 : 0;
