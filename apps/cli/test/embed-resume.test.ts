// `jepa embed -o` as a corpus job meets trouble: killed (SIGKILL) at many points and resumed, a full
// disk (a tiny tmpfs, where we may mount one) and a file-size limit (ulimit -f, always). Each time the
// finished output and its index must be byte-identical to those of one uninterrupted run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { forgeModel, mulberry32 } from '@jepa/gguf';
import { parseNpyHeader, readNpy } from '@jepa/preprocess';
import { cliMain, pngOf } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = cliMain();
const work = mkdtempSync(join(tmpdir(), 'jepa-embed-resume-'));
const N = 96; // images: with --batch 2 that is 48 write points
const env = { ...process.env, JEPA_DEVICE: 'cpu' };
type Format = 'npy' | 'json' | 'jsonl';

/** The kill points are seeded (mulberry32), so they are reproducible; JEPA_TEST_SEED picks another run. */
const SEED = Number(process.env.JEPA_TEST_SEED ?? 20_240_611);
const rng = mulberry32;

/** A 12x12 RGB PNG of seeded pixels: every image differs, so every embedding does. */
function png(seed: number): Buffer {
  const next = rng(seed * 7919 + 1);
  return pngOf(12, 12, () => Math.floor(next() * 256));
}

let model = '';
let images: string[] = [];
/** Slows every fdatasync of the child by SLOW_SYNC_MS, so that a kill lands mid-run and not after it. */
let slowSync = '';

function embedArgs(out: string, inputs: readonly string[] = images, ...more: string[]): string[] {
  return [main, 'embed', '-m', model, ...inputs, '--batch', '2', '--threads', '1', '-o', out, ...more];
}

function jepa(args: string[], prefix: string[] = []) {
  const r = spawnSync(prefix.length ? prefix[0]! : process.execPath, prefix.length ? [...prefix.slice(1), process.execPath, ...args] : args, {
    encoding: 'utf8',
    env,
  });
  return { code: r.status, signal: r.signal, err: r.stderr, out: r.stdout };
}

const indexOf = (out: string) => `${out}.index.jsonl`;
const partialOf = (out: string) => `${out}.partial`;
const dataOf = (out: string, format: Format) => (format === 'jsonl' ? out : partialOf(out));
const read = (path: string) => readFileSync(path);

/** The complete lines of an index (a torn last line left out), or null if there is no index yet. */
function indexLines(path: string): string[] | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  lines.pop();
  return lines;
}

const refs = new Map<Format, { path: string; data: Buffer; index: Buffer; lines: string[] }>();

beforeAll(() => {
  const dir = join(work, 'images');
  mkdirSync(dir);
  images = Array.from({ length: N }, (_, i) => {
    const p = join(dir, `img-${String(i).padStart(3, '0')}.png`);
    writeFileSync(p, png(i));
    const t = new Date(Date.UTC(2024, 5, 1, 12, 0, i, 500));
    utimesSync(p, t, t);
    return p;
  });
  model = forgeModel('hfvit', { seed: 7, path: join(work, 'model.gguf') }).path;
  slowSync = join(work, 'slow-sync.mjs');
  writeFileSync(
    slowSync,
    `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const ms = Number(process.env.SLOW_SYNC_MS ?? 20);
const cell = new Int32Array(new SharedArrayBuffer(4));
const real = fs.fdatasyncSync;
fs.fdatasyncSync = (fd) => { real(fd); Atomics.wait(cell, 0, 0, ms); };
syncBuiltinESMExports();
`,
  );
  // The uninterrupted reference runs, one per format.
  for (const format of ['npy', 'json', 'jsonl'] as const) {
    const path = join(work, `ref.${format}`);
    const r = jepa(embedArgs(path));
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(new RegExp(`${N} embedded`));
    const lines = indexLines(indexOf(path))!;
    refs.set(format, { path, data: read(path), index: read(indexOf(path)), lines });
  }
}, 180_000);

afterAll(() => {
  for (const dir of mounted) spawnSync('umount', [dir]);
  rmSync(work, { recursive: true, force: true });
});

describe('the reference runs', () => {
  it('hold N distinct rows and an index line per input', () => {
    const npy = readNpy(refs.get('npy')!.path);
    expect(npy.shape).toEqual([N, 32]);
    const rows = new Set<string>();
    const data = npy.data as Float32Array;
    for (let i = 0; i < N; i++) rows.add(Buffer.from(data.buffer, data.byteOffset + i * 128, 128).toString('hex'));
    expect(rows.size).toBe(N);
    for (const format of ['npy', 'json', 'jsonl'] as const) {
      const entries = refs.get(format)!.lines.map((l) => JSON.parse(l));
      expect(entries.map((e) => e.input)).toEqual(images);
      expect(entries.map((e) => e.row)).toEqual(images.map((_, i) => i));
      expect(entries[5].mtimeMs).toBe(Date.UTC(2024, 5, 1, 12, 0, 5, 500));
    }
    const json = JSON.parse(refs.get('json')!.data.toString('utf8'));
    const jsonl = refs
      .get('jsonl')!
      .data.toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json).toEqual(jsonl);
    expect(Float32Array.from(json[3].embedding)).toEqual(data.subarray(3 * 32, 4 * 32));
  });
});

/** What is indexed is on disk and right: the index lines are the reference's first lines, and the data up to their end is the reference's bytes. */
function expectIntactPrefix(out: string, format: Format): number {
  const ref = refs.get(format)!;
  const lines = indexLines(indexOf(out)) ?? [];
  expect(lines).toEqual(ref.lines.slice(0, lines.length));
  if (lines.length === 0) return 0;
  const end = (JSON.parse(lines[lines.length - 1]!) as { end: number }).end;
  const data = read(dataOf(out, format));
  expect(data.length).toBeGreaterThanOrEqual(end);
  // .npy: the header's row count is written at the end; its length and the row shape are not
  const from = format === 'npy' ? parseNpyHeader(ref.data).dataStart : 0;
  if (format === 'npy') {
    const head = parseNpyHeader(data);
    expect(head.dataStart).toBe(from);
    expect(head.shape.slice(1)).toEqual([32]);
  }
  expect(data.subarray(from, end).equals(ref.data.subarray(from, end))).toBe(true);
  return lines.length;
}

function expectSameAsReference(out: string, format: Format): void {
  const ref = refs.get(format)!;
  expect(existsSync(partialOf(out))).toBe(false);
  expect(read(out).equals(ref.data)).toBe(true);
  expect(read(indexOf(out)).toString('utf8')).toBe(ref.index.toString('utf8'));
}

/** Runs embed (slowed) and SIGKILLs it once its index has at least k complete lines. */
async function killedOnceIndexed(args: string[], index: string, k: number): Promise<{ landed: boolean; lines: number; err: string }> {
  const child = spawn(process.execPath, ['--import', pathToFileURL(slowSync).href, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  let exited = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => {
      exited = true;
      r({ code, signal });
    }),
  );
  while (!exited) {
    const lines = indexLines(index);
    if (lines !== null && lines.length >= k) {
      child.kill('SIGKILL');
      break;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  const { signal } = await exit;
  return { landed: signal === 'SIGKILL', lines: indexLines(index)?.length ?? -1, err };
}

describe('jepa embed killed and resumed', () => {
  it.each(['npy', 'jsonl', 'json'] as const)(
    '.%s: five SIGKILLs at seeded points, each followed by --resume, end byte-identical to one run',
    async (format) => {
      const dir = mkdtempSync(join(work, `killed-${format}-`));
      const out = join(dir, `out.${format}`);
      // k = 0: as soon as the index exists (before any batch); then three seeded points; then one batch before the end
      const next = rng(SEED + format.length);
      const middle = new Set<number>();
      while (middle.size < 3) middle.add(4 + Math.floor(next() * ((N - 12) / 4)) * 4);
      const points = [0, ...[...middle].sort((a, b) => a - b), N - 3];
      const log: string[] = [];
      let landed = 0;
      for (const [i, k] of points.entries()) {
        const r = await killedOnceIndexed(embedArgs(out, images, ...(i > 0 ? ['--resume'] : [])), indexOf(out), k);
        log.push(`k=${k}: ${r.landed ? `killed with ${r.lines} indexed` : 'finished first'}`);
        if (r.landed) landed++;
        else expect(r.err).toMatch(/embedded/);
        expectIntactPrefix(out, format);
      }
      console.log(`embed-resume .${format} (seed ${SEED}): ${log.join('; ')}`);
      // the chain was really interrupted (a negative control: otherwise this compares one run with another)
      expect(landed).toBeGreaterThanOrEqual(4);
      expect(existsSync(out) && format !== 'jsonl').toBe(false);
      const last = jepa(embedArgs(out, images, '--resume'));
      expect(last.code, last.err).toBe(0);
      expect(last.err).toMatch(/resuming: \d+ of 96 inputs are already in/);
      expect(last.err).toMatch(/96 embedded \(\d+ of them by the earlier run\)/);
      expectSameAsReference(out, format);
    },
    240_000,
  );

  it('a finished output resumed with more inputs continues it', () => {
    const dir = mkdtempSync(join(work, 'more-'));
    const out = join(dir, 'out.npy');
    expect(jepa(embedArgs(out, images.slice(0, 41))).code).toBe(0);
    expect(readNpy(out).shape).toEqual([41, 32]);
    const r = jepa(embedArgs(out, images, '--resume'));
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/resuming: 41 of 96 inputs/);
    expectSameAsReference(out, 'npy');
  });

  it('--resume refuses other inputs, or a changed one, in one line (exit 2)', () => {
    const dir = mkdtempSync(join(work, 'refuse-'));
    const copies = images.slice(0, 6).map((p, i) => {
      const c = join(dir, `c${i}.png`);
      writeFileSync(c, read(p));
      return c;
    });
    const out = join(dir, 'out.jsonl');
    expect(jepa(embedArgs(out, copies)).code).toBe(0);
    const other = jepa(embedArgs(out, [copies[1]!, copies[0]!, ...copies.slice(2)], '--resume'));
    expect(other.code).toBe(2);
    expect(other.err).toMatch(
      /^jepa: --resume: input 1 was .*c0\.png in .*out\.jsonl but is .*c1\.png now; give the same inputs in the same order, or run without --resume\n$/,
    );
    // The refusal comes before the model is loaded: a model path that does not exist is never reached.
    const early = jepa(
      embedArgs(out, [copies[1]!, copies[0]!, ...copies.slice(2)], '--resume').map((a) => (a === model ? join(dir, 'no-such-model.gguf') : a)),
    );
    expect(early.code).toBe(2);
    expect(early.err).toMatch(/^jepa: --resume: input 1 was .*c0\.png/);
    const later = new Date(Date.UTC(2025, 0, 1));
    utimesSync(copies[2]!, later, later);
    const changed = jepa(embedArgs(out, copies, '--resume'));
    expect(changed.code).toBe(2);
    expect(changed.err).toMatch(
      /^jepa: --resume: .*c2\.png changed \(size or mtime\) since it was embedded into .*out\.jsonl; run without --resume\n$/,
    );
    writeFileSync(join(dir, 'plain.npy'), 'x');
    const noIndex = jepa(embedArgs(join(dir, 'plain.npy'), copies, '--resume'));
    expect(noIndex.code).toBe(2);
    expect(noIndex.err).toMatch(
      /^jepa: --resume: .*plain\.npy has no index \(.*plain\.npy\.index\.jsonl\), so it was not written by a resumable run; remove it or run without --resume\n$/,
    );
  });
});

/** Checks a run stopped by a write error: exit 2, one line saying so, and the indexed prefix intact. */
function expectWriteFailure(r: { code: number | null; err: string }, out: string, format: Format, reason: RegExp, hint: string): number {
  expect(r.code, r.err).toBe(2);
  const lines = r.err.trimEnd().split('\n');
  expect(lines.filter((l) => reason.test(l))).toHaveLength(1);
  const last = lines[lines.length - 1]!;
  const m = new RegExp(
    `^jepa: -o ${out.replace(/[.]/g, '\\.')}: ${reason.source} after (\\d+) of ${N} inputs; what was written is intact: ${hint} run the same command with --resume$`,
  ).exec(last);
  expect(m, last).not.toBeNull();
  expect(r.err).not.toMatch(/\n\s+at |internal error/);
  const after = Number(m![1]);
  const kept = expectIntactPrefix(out, format);
  // the message counts the inputs before the failed batch; some lines of that batch may be indexed too
  expect(kept).toBeGreaterThanOrEqual(after);
  expect(kept).toBeLessThanOrEqual(after + 2);
  expect(after).toBeGreaterThan(0);
  expect(kept).toBeLessThan(N);
  expect(existsSync(out) && format !== 'jsonl').toBe(false);
  return after;
}

const mounted: string[] = [];
function canMountTmpfs(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(work, 'probe-'));
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', probe]).status === 0;
  if (ok) spawnSync('umount', [probe]);
  return ok;
}

describe('jepa embed on a full disk', () => {
  it.runIf(canMountTmpfs()).each(['npy', 'json'] as const)(
    '.%s on a 16 KiB tmpfs: ENOSPC in one line, what was indexed intact; after a remount with room, --resume finishes it identically',
    (format) => {
      const dir = mkdtempSync(join(work, `full-${format}-`));
      expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', dir]).status).toBe(0);
      mounted.push(dir);
      const out = join(dir, `out.${format}`);
      const r = jepa(embedArgs(out));
      const after = expectWriteFailure(r, out, format, /the disk is full \(ENOSPC\)/, 'free some space and');
      console.log(`embed-resume .${format}: ENOSPC after ${after} of ${N}`);
      // free some space, and resume
      expect(spawnSync('mount', ['-o', 'remount,size=1m', dir]).status).toBe(0);
      const resumed = jepa(embedArgs(out, images, '--resume'));
      expect(resumed.code, resumed.err).toBe(0);
      expect(resumed.err).toMatch(new RegExp(`resuming: ${after}|resuming: ${after + 1}|resuming: ${after + 2}`));
      expectSameAsReference(out, format);
    },
    120_000,
  );

  it.each(['npy', 'jsonl'] as const)(
    '.%s under ulimit -f 8 (unprivileged): EFBIG in one line, what was indexed intact; --resume without the limit finishes it identically',
    (format) => {
      const dir = mkdtempSync(join(work, `efbig-${format}-`));
      const out = join(dir, `out.${format}`);
      // node ignores SIGXFSZ itself; the trap makes sure a write past the limit fails with EFBIG instead of killing
      const r = jepa(embedArgs(out), ['bash', '-c', 'ulimit -f 8; trap "" XFSZ; exec "$@"', 'bash']);
      const after = expectWriteFailure(r, out, format, /the file grew past the size this system allows \(EFBIG\)/, 'fix that and');
      console.log(`embed-resume .${format}: EFBIG after ${after} of ${N}`);
      const resumed = jepa(embedArgs(out, images, '--resume'));
      expect(resumed.code, resumed.err).toBe(0);
      expectSameAsReference(out, format);
    },
    120_000,
  );
});

describe('jepa embed -o checks', () => {
  it('-o in a folder that does not exist fails at once, before the model is loaded, in one line', () => {
    for (const extra of [[], ['--resume']]) {
      const r = jepa([main, 'embed', '-m', join(work, 'no-such-model.gguf'), images[0]!, '-o', '/no/such/dir/out.npy', ...extra]);
      expect(r.code).toBe(2);
      expect(r.err).toBe('jepa: -o /no/such/dir/out.npy: the folder /no/such/dir does not exist\n');
    }
  });

  it('--resume without -o is refused', () => {
    const r = jepa([main, 'embed', '-m', model, images[0]!, '--resume']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('jepa: --resume needs -o: there is nothing to resume on stdout\n');
  });
});
