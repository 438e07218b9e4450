// V-JEPA 2-AC at its real size (ViT-g/16 encoder at 256², 1408-d, 40 layers; the 1024-d predictor of
// 24 layers, 16 heads, no extrinsics, 32 steps), random weights forged once into --dir (about 5 GB of
// f32): encoder ms per frame and one predictor step over K candidates, one rollout, one CEM plan.
// --small forges a shrunken model for smoke runs; --model runs a given .gguf (a jepa-quantize output).
// The forge streams tensor by tensor to the file: forgeModel builds the whole file in one typed array,
// which Node 20 caps at 4 GiB.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { GgmlType, GgufWriter, expectedTensors, forgeHparams, hparamsToMetadata, mulberry32, type ModelHparams } from '@jepa/gguf';
import { AcWorldModel } from '@jepa/worldmodel';
import { machineInfo } from './machine.js';
import { median, sample } from './stats.js';
import { count, int, intList } from './cli-args.js';

/** The C++ engine's published figure, printed beside ac-plan for reference (not this machine). */
const CPP_REFERENCE = 'jepa.cpp 0.2.0, GPU: ViT-g planner 1.97 rollouts/s, p50 508 ms (its hardware)';

interface Size {
  file: string;
  name: string;
  enc: { embedDim: number; nLayer: number; nHead: number; ffnDim: number; patchSize: number; imgSize: number; nFrames: number };
  pred: { embedDim: number; nLayer: number; nHead: number; ffnDim: number };
}

const REAL: Size = {
  file: 'vjepa2-ac-vitg-256-f32.gguf',
  name: 'bench V-JEPA 2-AC (ViT-g/16 256², 1024-d predictor, random weights)',
  enc: { embedDim: 1408, nLayer: 40, nHead: 22, ffnDim: 6144, patchSize: 16, imgSize: 256, nFrames: 64 },
  pred: { embedDim: 1024, nLayer: 24, nHead: 16, ffnDim: 4096 },
};

const SMALL: Size = {
  file: 'vjepa2-ac-small-f32.gguf',
  name: 'bench V-JEPA 2-AC (small smoke shape, random weights)',
  enc: { embedDim: 96, nLayer: 2, nHead: 2, ffnDim: 192, patchSize: 16, imgSize: 64, nFrames: 16 },
  pred: { embedDim: 64, nLayer: 2, nHead: 2, ffnDim: 128 },
};

/** `size` with other layer counts (--enc-layers, --pred-layers): the real widths at a fraction of the weights. */
function withLayers(size: Size, enc: number | undefined, pred: number | undefined): Size {
  if (enc === undefined && pred === undefined) return size;
  const e = enc ?? size.enc.nLayer;
  const p = pred ?? size.pred.nLayer;
  return {
    file: size.file.replace(/-f32\.gguf$/, `-enc${e}-pred${p}-f32.gguf`),
    name: `${size.name}, ${e} + ${p} layers`,
    enc: { ...size.enc, nLayer: e },
    pred: { ...size.pred, nLayer: p },
  };
}

function acModel(dir: string, size: Size): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, size.file);
  if (existsSync(path)) return path;
  const t0 = performance.now();
  process.stderr.write(`jepa-bench: forging ${path} (once; reused on later runs)\n`);
  const hparams = forgeHparams('vjepa2', {
    edit: (h: ModelHparams) => {
      const e = size.enc;
      const tubeletSize = 2;
      const gridSize = e.imgSize / e.patchSize;
      const gridFrames = e.nFrames / tubeletSize;
      const p = size.pred;
      return {
        ...h,
        name: size.name,
        head: null,
        labels: null,
        pre: { ...h.pre, resize: { mode: 'short', size: e.imgSize }, crop: e.imgSize },
        enc: {
          ...h.enc,
          embedDim: e.embedDim,
          nLayer: e.nLayer,
          nHead: e.nHead,
          headDim: e.embedDim / e.nHead,
          ffnDim: e.ffnDim,
          patchSize: e.patchSize,
          tubeletSize,
          imgSize: e.imgSize,
          nFrames: e.nFrames,
          gridSize,
          gridFrames,
          nPatches: gridFrames * gridSize * gridSize,
        },
        pred: {
          kind: 'ac',
          embedDim: p.embedDim,
          nLayer: p.nLayer,
          nHead: p.nHead,
          headDim: p.embedDim / p.nHead,
          ffnDim: p.ffnDim,
          lnEps: Math.fround(1e-6),
          act: 'gelu',
          actionDim: 7,
          stateDim: 7,
          extrinsics: false,
          condTokens: 2,
          frameCausal: true,
          tubeletSize,
          nFrames: e.nFrames,
          maxSteps: gridFrames,
          gridSize,
          rope: { layout: 'tiled', theta: 10000, interpolate: false, refGrid: null },
        },
      };
    },
  });
  forgeStreaming(path, hparams, 17);
  process.stderr.write(`jepa-bench: forged in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  return path;
}

/** FNV-1a of the tensor name, mixed with the seed: each tensor its own stream. */
function tensorSeed(seed: number, name: string): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Writes an f32 GGUF of `hparams` tensor by tensor, in 4 MiB chunks: norm weights 1 ± 0.1, every
 * other value 0 ± 0.1 (the forge's scheme). GgufWriter.toFile renames the file into place only on finish.
 */
function forgeStreaming(path: string, hparams: ModelHparams, seed: number): void {
  const w = GgufWriter.toFile(path);
  try {
    for (const [key, value] of hparamsToMetadata(hparams)) w.setMetadata(key, value);
    const tensors = expectedTensors(hparams);
    for (const t of tensors) w.addTensor(t.name, GgmlType.F32, t.shape);
    const chunk = new Float32Array(1 << 20);
    for (const t of tensors) {
      const rnd = mulberry32(tensorSeed(seed, t.name));
      const base = /(^|\.)(ln\d|norm|attn_norm|ffn_norm)\.weight$/.test(t.name) ? 1 : 0;
      let left = t.shape.reduce((a, b) => a * b, 1);
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        for (let i = 0; i < n; i++) chunk[i] = base + (rnd() - 0.5) * 0.2;
        w.writeTensorData(new Uint8Array(chunk.buffer, 0, n * 4));
        left -= n;
      }
    }
    w.finish();
  } catch (err) {
    w.abort();
    throw err;
  }
}

const wave = (n: number, seed: number, scale = 1) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + seed) * scale);

interface Opts {
  threads: number;
  repeat: number;
  warmup: number;
  candidates: number[];
  rollout: number;
  samples: number;
  topk: number;
  cemSteps: number;
  dir: string;
  /** A V-JEPA 2-AC .gguf to run instead of the forged f32 one (a jepa-quantize output, say). */
  model?: string;
  small?: boolean;
  encLayers?: number;
  predLayers?: number;
  device?: string;
  flash: boolean;
  json?: boolean;
}

interface Row {
  bench: string;
  shape: string;
  medianMs: number;
  rate: string;
  samples: number[];
}

interface Result {
  model: string;
  rows: Row[];
  notes: string[];
}

const peakRssMiB = () => process.resourceUsage().maxRSS / 1024;

function report(result: Result, o: Opts): void {
  const machine = machineInfo(o.threads);
  const rss = peakRssMiB();
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ machine, model: result.model, rows: result.rows, notes: result.notes, peakRssMiB: rss }, null, 2)}\n`);
    return;
  }
  const lines = [
    '| bench | shape | median ms | rate |',
    '|---|---|---|---|',
    ...result.rows.map((r) => `| ${r.bench} | ${r.shape} | ${r.medianMs.toFixed(2)} | ${r.rate} |`),
  ];
  const notes = [...result.notes, `peak RSS ${rss.toFixed(0)} MiB`];
  process.stdout.write(`${machine.summary}\nmodel: ${result.model}\n\n${lines.join('\n')}\n\n${notes.map((n) => `note: ${n}`).join('\n')}\n`);
}

async function open(o: Opts): Promise<{ wm: AcWorldModel; model: string }> {
  if (o.model && (o.small || o.encLayers !== undefined || o.predLayers !== undefined))
    throw new Error('--small, --enc-layers and --pred-layers shape the forged model; --model runs a given one');
  const path = o.model ?? acModel(o.dir, withLayers(o.small ? SMALL : REAL, o.encLayers, o.predLayers));
  const wm = await AcWorldModel.load(path, { threads: o.threads, noFlash: !o.flash, ...(o.device ? { device: o.device } : {}) });
  const e = wm.model.spec.enc;
  const p = wm.predictor;
  const model = `${path}: encoder ${e.embedDim}-d x ${e.nLayer} at ${e.imgSize}² (patch ${e.patchSize}, ${wm.grid.h}x${wm.grid.w} tokens/frame); predictor ${p.embedDim}-d x ${p.nLayer}, ${p.nHead} heads, ${p.extrinsics ? 'extrinsics' : 'no extrinsics'}, ${p.maxSteps} steps; ${wm.model.device}`;
  return { wm, model };
}

/** Extrinsics for a model that has the token (a --model with it); none otherwise. */
const extrinsicsOf = (wm: AcWorldModel, rows: number) =>
  wm.predictor.extrinsics ? { extrinsics: wave(rows * (wm.predictor.actionDim - 1), 9, 0.1) } : {};

async function step(o: Opts): Promise<Result> {
  const { wm, model } = await open(o);
  try {
    const e = wm.model.spec.enc;
    const frame = wave(e.inChans * e.imgSize * e.imgSize, 1);
    const enc = await sample(() => wm.encodeFrames(frame, 1), o.repeat, o.warmup);
    const rows: Row[] = [
      {
        bench: 'ac encode (frame as a 2-frame clip + LayerNorm)',
        shape: `1 frame ${e.imgSize}²`,
        medianMs: median(enc),
        rate: `${(1000 / median(enc)).toFixed(2)} frames/s`,
        samples: enc,
      },
    ];
    const n = wm.tokensPerFrame * wm.embedDim;
    for (const K of o.candidates) {
      const input = {
        candidates: K,
        steps: 1,
        tokens: wave(K * n, 2),
        actions: wave(K * 7, 3, 0.05),
        states: wave(K * 7, 4, 0.5),
        ...extrinsicsOf(wm, K),
      };
      const s = await sample(() => wm.predict(input, { lastStepOnly: true, normalize: true }), o.repeat, o.warmup);
      const ms = median(s);
      rows.push({
        bench: 'ac predictor step (T 1, last step, normalised)',
        shape: `${K} candidate(s)`,
        medianMs: ms,
        rate: `${((1000 * K) / ms).toFixed(1)} candidates/s`,
        samples: s,
      });
    }
    return { model, rows, notes: [] };
  } finally {
    wm.dispose();
  }
}

async function rollout(o: Opts): Promise<Result> {
  const { wm, model } = await open(o);
  try {
    const n = wm.tokensPerFrame * wm.embedDim;
    const R = o.rollout;
    const rows: Row[] = [];
    for (const K of o.candidates) {
      const input = { context: wave(n, 5), pose: wave(7, 6, 0.5), actions: wave(K * R * 7, 7, 0.05), candidates: K, ...extrinsicsOf(wm, 1) };
      const s = await sample(() => wm.rollout(input), o.repeat, o.warmup);
      const ms = median(s);
      rows.push({
        bench: 'ac rollout',
        shape: `${K} candidate(s) x ${R} steps (${R} predictor runs, T 1..${R})`,
        medianMs: ms,
        rate: `${(1000 / ms).toFixed(2)} rollouts/s, ${((1000 * K) / ms).toFixed(1)} candidate-rollouts/s`,
        samples: s,
      });
    }
    return { model, rows, notes: [] };
  } finally {
    wm.dispose();
  }
}

async function plan(o: Opts): Promise<Result> {
  const { wm, model } = await open(o);
  try {
    const n = wm.tokensPerFrame * wm.embedDim;
    const context = wave(n, 8);
    const goal = wave(n, 9);
    const pose = wave(7, 10, 0.5);
    const run = () =>
      wm.plan({
        context,
        goal,
        pose,
        ...(wm.predictor.extrinsics ? { extrinsics: wave(wm.predictor.actionDim - 1, 11, 0.1) } : {}),
        rollout: o.rollout,
        samples: o.samples,
        topk: o.topk,
        cemSteps: o.cemSteps,
        seed: 1,
      });
    const s = await sample(run, o.repeat, o.warmup);
    const ms = median(s);
    return {
      model,
      rows: [
        {
          bench: 'ac CEM plan',
          shape: `${o.samples} samples x ${o.cemSteps} CEM steps x rollout ${o.rollout}, top ${o.topk}`,
          medianMs: ms,
          rate: `${(ms / 1000).toFixed(2)} s/plan, ${(ms / o.cemSteps).toFixed(1)} ms/CEM step (${((1000 * o.cemSteps) / ms).toFixed(2)} batched rollouts/s)`,
          samples: s,
        },
      ],
      notes: [`reference: ${CPP_REFERENCE}`, 'a plan is cem-steps batched rollouts of all samples, then one rollout of the planned actions'],
    };
  } finally {
    wm.dispose();
  }
}

export function registerAcBenches(program: Command): void {
  for (const [name, description, run, repeat] of [
    ['ac-step', 'V-JEPA 2-AC encoder ms/frame and one predictor step (T 1) over K candidates', step, 10],
    ['ac-rollout', 'one V-JEPA 2-AC rollout of --rollout steps over K candidates', rollout, 5],
    ['ac-plan', "one V-JEPA 2-AC CEM plan (the wrapper's defaults: 400 samples x 10 CEM steps x rollout 2, top 10)", plan, 3],
  ] as const) {
    program
      .command(name)
      .description(description)
      .option('-t, --threads <n>', 'compute threads', int, 2)
      .option('-k, --candidates <list>', 'candidates per predictor step / rollout, a comma list (step, rollout)', intList, [1, 400])
      .option('--rollout <n>', 'rollout steps (rollout, plan)', int, 2)
      .option('--samples <n>', 'CEM samples (plan)', int, 400)
      .option('--topk <n>', 'CEM elite size (plan)', int, 10)
      .option('--cem-steps <n>', 'CEM steps (plan)', int, 10)
      .option('-r, --repeat <n>', 'timed runs', int, repeat)
      .option('-w, --warmup <n>', 'untimed runs first', count, 1)
      .option('--no-flash', 'naive attention')
      .option('--device <d>', 'cpu, cuda or cuda:N (default JEPA_DEVICE, else the CPU)')
      .option('--dir <path>', 'where the forged model lives', 'tmp/bench-models')
      .option('-m, --model <file>', 'a V-JEPA 2-AC .gguf instead of the forged f32 one (a jepa-quantize output, say)')
      .option('--small', 'forge and run a small model (96-d encoder at 64², 64-d predictor) for smoke runs')
      .option('--enc-layers <n>', 'encoder layers of the forged model (default 40; --small 2)', int)
      .option('--pred-layers <n>', 'predictor layers of the forged model (default 24; --small 2)', int)
      .option('--md', 'print a markdown table (the default)')
      .option('--json', 'print every sample as JSON')
      .action(async (o: Opts) => report(await run(o), o));
  }
}
