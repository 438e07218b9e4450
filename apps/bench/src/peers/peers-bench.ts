// The same weights (torchvision's ViT-B/16, or a DINOv3 ViT-S/16 or B/16: peer-nets.ts) through onnxruntime-node
// and through this engine, in one process. Each
// round gives every runtime its turn, in an order that rotates from round to round, so a slow spell
// of a shared machine hits all of them alike; the ratio to onnxruntime is the median of the
// per-round ratios. A turn starts with a pause, so the threads the previous runtime leaves spinning
// (onnxruntime's pool and OpenMP both spin after their work) have parked, then one untimed run warms
// the caches: each runtime is timed as if it ran alone, back to back. Also reported: how closely
// each engine's tokens agree with onnxruntime's fp32. onnxruntime runs twice: the fp32 export and
// the int8 file transformers.js would ship for it (ensureInt8Export).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { loadModelSpec } from '@jepa/gguf';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Model, compareTokens } from '@jepa/graph';
import { quantizeMain } from '../bins.js';
import { median, timeMs } from '../stats.js';
import { type PeerNet, VIT_B16 } from './peer-nets.js';

const root = resolve(fileURLToPath(import.meta.url), '../../../../..');

/** The engine's weight types the comparison runs by default. */
export const PEER_TYPES = ['f32', 'f16', 'q8_0', 'q8_row', 'q4_0', 'q4_K'];

/** Long enough for onnxruntime's and OpenMP's idle threads to stop spinning. */
const SETTLE_MS = 250;
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

export interface PeersOptions {
  threads: number;
  warmup: number;
  rounds: number;
  dir: string;
  types: string[];
  /** Images per call, every runtime alike. */
  batch: number;
  /** The network (default torchvision's ViT-B/16). */
  net?: PeerNet;
}

export interface PeerRow {
  runtime: string;
  weights: string;
  batch: number;
  /** Median ms per image over the rounds (a call's time over its batch). */
  ms: number;
  /** Median over the rounds of this runtime's time divided by onnxruntime's in the same round. */
  ratioToOrt: number;
  /** The same against onnxruntime's int8 file. */
  ratioToOrtInt8: number;
  minTokenCos: number;
  /** ms per image in each round, in round order (the same rounds as every other row's). */
  roundsMs: number[];
}

/**
 * onnxruntime-node, loaded only here: it is a devDependency of @jepa/bench (so that installing `jepa`
 * never pulls it in), present in a checkout of the repository after `pnpm install`.
 */
export async function loadOrt(): Promise<typeof import('onnxruntime-node')> {
  try {
    return await import('onnxruntime-node');
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes("'onnxruntime-node'"))
      throw new Error(
        'onnxruntime-node is not installed: `jepa-bench peers` and `jepa-bench ort-profile` compare against it, and it is not a dependency of the jepa package; run them in a checkout of the jepa repository (after pnpm install), or `npm install onnxruntime-node@1.30.0` beside jepa',
      );
    throw err;
  }
}

export function ensureExport(dir: string, log: (s: string) => void, net: PeerNet = VIT_B16): void {
  if (net.exported(dir)) return;
  rmSync(join(dir, `${net.stem}_tokens_int8.onnx`), { force: true }); // made from the export, so made again
  net.exportTo(dir, log);
}

/** onnxruntime's int8 file of the export, as transformers.js's quantize script makes it (scripts/bench/quantize_onnx_int8.py). */
export function ensureInt8Export(dir: string, log: (s: string) => void, net: PeerNet = VIT_B16): string {
  const out = join(dir, `${net.stem}_tokens_int8.onnx`);
  if (existsSync(out)) return out;
  log('writing the int8 ONNX file with Debian python3-onnx');
  const script = join(root, 'scripts/bench/quantize_onnx_int8.py');
  const r = spawnSync('/usr/bin/python3', [script, join(dir, `${net.stem}_tokens.onnx`), out], { stdio: ['ignore', process.stderr, 'inherit'] });
  if (r.status !== 0) throw new Error('the int8 ONNX file was not written (needs /usr/bin/python3 with python3-onnx)');
  return out;
}

/** A peer network as a GGUF of the given type (f32 converted, others through jepa-quantize), made once in dir. */
export async function peerModel(dir: string, type: string, log: (s: string) => void, net: PeerNet = VIT_B16): Promise<string> {
  mkdirSync(dir, { recursive: true });
  ensureExport(dir, log, net);
  const f32 = join(dir, `${net.stem}-f32.gguf`);
  const stale = existsSync(f32) && loadModelSpec(f32).pre.crop !== 224;
  if (stale) for (const f of readdirSync(dir)) if (f.startsWith(`${net.stem}-`) && f.endsWith('.gguf')) rmSync(join(dir, f));
  if (!existsSync(f32)) await net.writeF32(dir, f32);
  return type === 'f32' ? f32 : quantized(f32, type, dir, net);
}

function quantized(f32: string, type: string, dir: string, net: PeerNet): string {
  const out = join(dir, `${net.stem}-${type}.gguf`);
  if (existsSync(out)) return out;
  const r = spawnSync(process.execPath, [quantizeMain(), f32, out, type], { stdio: ['ignore', process.stderr, 'inherit'] });
  if (r.status !== 0) throw new Error(`jepa-quantize ${type} failed`);
  return out;
}

/** The seeded 224² input every runtime of the comparison sees. */
export function peerPixels(batch = 1): Float32Array {
  const data = new Float32Array(batch * 3 * 224 * 224);
  let s = 12345;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = (s / 2 ** 32) * 4 - 2;
  }
  return data;
}

export async function runPeersBench(o: PeersOptions, log: (s: string) => void): Promise<PeerRow[]> {
  const ort = await loadOrt();
  const dir = resolve(o.dir);
  const net = o.net ?? VIT_B16;
  const f32 = await peerModel(dir, 'f32', log, net);
  const sessionOptions = { intraOpNumThreads: o.threads, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential' } as const;
  const session = await ort.InferenceSession.create(join(dir, `${net.stem}_tokens.onnx`), sessionOptions);
  const int8Session = await ort.InferenceSession.create(ensureInt8Export(dir, log, net), sessionOptions);
  const n = o.batch;
  const data = peerPixels(n);
  const feeds = { pixels: new ort.Tensor('float32', data, [n, 3, 224, 224]) };
  const ortRun = async () => (await session.run(feeds)).tokens!.data as Float32Array;
  const ortInt8Run = async () => (await int8Session.run(feeds)).tokens!.data as Float32Array;
  const reference = await ortRun();

  const engines = await Promise.all(
    o.types.map(async (type) => {
      const path = type === 'f32' ? f32 : quantized(f32, type, dir, net);
      const model = await Model.load(path, { threads: o.threads });
      const ctx = model.createContext({ maxBatch: n });
      const run = async () => (await ctx.encode({ data, shape: [n, 3, 224, 224] })).tokens;
      return { type, model, ctx, run };
    }),
  );
  const runners: { name: string; run: () => Promise<Float32Array> }[] = [
    { name: 'ort', run: ortRun },
    { name: 'ort-int8', run: ortInt8Run },
    ...engines.map((e) => ({ name: e.type, run: e.run })),
  ];
  for (let i = 0; i < o.warmup; i++) for (const r of runners) await r.run();
  const times = new Map<string, number[]>(runners.map((r) => [r.name, []]));
  for (let round = 0; round < o.rounds; round++) {
    for (let k = 0; k < runners.length; k++) {
      const r = runners[(round + k) % runners.length]!;
      await pause(SETTLE_MS);
      await r.run();
      times.get(r.name)!.push((await timeMs(r.run)) / n);
    }
  }
  const ortTimes = times.get('ort')!;
  const int8Times = times.get('ort-int8')!;
  const ortMs = median(ortTimes);
  const perRound = (mine: number[], base: number[]) => median(mine.map((t, round) => t / base[round]!));
  const rows: PeerRow[] = [
    {
      runtime: `onnxruntime-node`,
      weights: 'fp32',
      batch: n,
      ms: ortMs,
      ratioToOrt: 1,
      ratioToOrtInt8: perRound(ortTimes, int8Times),
      minTokenCos: 1,
      roundsMs: ortTimes,
    },
    {
      runtime: `onnxruntime-node`,
      weights: 'int8 (s8 weights per tensor, dynamic u8 activations)',
      batch: n,
      ms: median(int8Times),
      ratioToOrt: perRound(int8Times, ortTimes),
      ratioToOrtInt8: 1,
      minTokenCos: compareTokens(await ortInt8Run(), reference, net.dim).minCos,
      roundsMs: int8Times,
    },
  ];
  for (const e of engines) {
    const mine = times.get(e.type)!;
    const ms = median(mine);
    const ratio = perRound(mine, ortTimes);
    const metrics = compareTokens(await e.run(), reference, net.dim);
    rows.push({
      runtime: 'jepa (ggml)',
      weights: e.type,
      batch: n,
      ms,
      ratioToOrt: ratio,
      ratioToOrtInt8: perRound(mine, int8Times),
      minTokenCos: metrics.minCos,
      roundsMs: mine,
    });
    // the fastest round of each, which a slow spell of the machine (or onnxruntime's) does not reach
    const best = (xs: number[]) => Math.min(...xs);
    log(
      `jepa ${e.type}: ${ms.toFixed(1)} ms (onnxruntime ${ortMs.toFixed(1)} ms; per-round ratio ${ratio.toFixed(2)}), worst token cosine vs onnxruntime ${metrics.minCos.toFixed(6)}; ` +
        `fastest rounds ${best(mine).toFixed(1)} ms against onnxruntime fp32 ${best(ortTimes).toFixed(1)} (${(best(mine) / best(ortTimes)).toFixed(2)}x) and int8 ${best(int8Times).toFixed(1)} (${(best(mine) / best(int8Times)).toFixed(2)}x)`,
    );
    e.ctx.dispose();
    e.model.dispose();
  }
  await session.release();
  await int8Session.release();
  return rows;
}

export function peersMarkdown(rows: PeerRow[]): string {
  return [
    '| runtime | weights | batch | ms / image (median) | time vs onnxruntime fp32 (median of per-round ratios) | time vs onnxruntime int8 | worst token cosine vs onnxruntime fp32 |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.runtime} | ${r.weights} | ${r.batch} | ${r.ms.toFixed(1)} | ${r.ratioToOrt.toFixed(2)}x | ${r.ratioToOrtInt8.toFixed(2)}x | ${r.minTokenCos.toFixed(6)} |`,
    ),
  ].join('\n');
}
