// LeWorldModel at its real size (ViT-Ti/14 encoder, 192-d predictor of 6 AdaLN blocks, 16 heads of
// 64, action 10 -> 192), random weights forged once into --dir: encoder + projector ms per frame,
// one predictor step over K candidates, rollouts per second, and one full CEM plan.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { forgeModel, type ModelHparams } from '@jepa/gguf';
import { WorldModel } from '@jepa/worldmodel';
import { machineInfo } from './machine.js';
import { median, sample } from './stats.js';
import { count, int } from './cli-args.js';

function lewmModel(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'lewm-pusht-shape-f32.gguf');
  if (existsSync(path)) return path;
  forgeModel('lewm', {
    seed: 13,
    path,
    edit: (h: ModelHparams) => ({
      ...h,
      name: 'bench LeWM (ViT-Ti/14, random weights)',
      enc: { ...h.enc, embedDim: 192, nLayer: 12, nHead: 3, headDim: 64, ffnDim: 768, patchSize: 14, imgSize: 224, gridSize: 16, nPatches: 256 },
      pred:
        h.pred?.kind === 'action'
          ? {
              ...h.pred,
              embedDim: 192,
              nLayer: 6,
              nHead: 16,
              headDim: 64,
              ffnDim: 2048,
              nFrames: 3,
              actionDim: 10,
              actionHidden: 768,
              projHidden: 2048,
            }
          : h.pred,
    }),
  });
  return path;
}

const wave = (n: number, seed: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + seed));

interface Opts {
  threads: number;
  repeat: number;
  warmup: number;
  candidates: number;
  horizon: number;
  samples: number;
  iterations: number;
  topk: number;
  dir: string;
  /** A LeWM .gguf to run instead of the forged f32 one (a jepa-quantize output, say). */
  model?: string;
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

function report(rows: Row[], o: Opts): void {
  const machine = machineInfo(o.threads);
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
    return;
  }
  const lines = [
    '| bench | shape | median ms | rate |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.bench} | ${r.shape} | ${r.medianMs.toFixed(2)} | ${r.rate} |`),
  ];
  process.stdout.write(`${machine.summary}\n\n${lines.join('\n')}\n`);
}

async function open(o: Opts): Promise<WorldModel> {
  return WorldModel.load(o.model ?? lewmModel(o.dir), { threads: o.threads, noFlash: !o.flash });
}

async function step(o: Opts): Promise<Row[]> {
  const wm = await open(o);
  const frame = { data: wave(3 * 224 * 224, 1), shape: [1, 3, 224, 224] };
  const enc = await sample(() => wm.encode(frame), o.repeat, o.warmup);
  const K = o.candidates;
  const embs = { data: wave(K * 3 * wm.embedDim, 2), candidates: K, steps: 3 };
  const acts = { data: wave(K * 3 * wm.actionDim, 3), candidates: K, steps: 3 };
  const pred = await sample(() => wm.predict(embs, acts), o.repeat, o.warmup);
  wm.dispose();
  return [
    {
      bench: 'lewm encode (ViT-Ti/14 + projector)',
      shape: '1 frame 224²',
      medianMs: median(enc),
      rate: `${(1000 / median(enc)).toFixed(1)} frames/s`,
      samples: enc,
    },
    {
      bench: 'lewm predictor step',
      shape: `${K} candidates x 3 steps`,
      medianMs: median(pred),
      rate: `${((1000 * K) / median(pred)).toFixed(0)} candidate-steps/s`,
      samples: pred,
    },
  ];
}

async function rollout(o: Opts): Promise<Row[]> {
  const wm = await open(o);
  const K = o.candidates;
  const initial = { data: wave(wm.embedDim, 4), candidates: 1, steps: 1 };
  const actions = { data: wave(K * o.horizon * wm.actionDim, 5), candidates: K, steps: o.horizon };
  const s = await sample(() => wm.rollout(initial, actions), o.repeat, o.warmup);
  wm.dispose();
  const ms = median(s);
  return [
    {
      bench: 'lewm rollout',
      shape: `${K} candidates x horizon ${o.horizon} (${o.horizon} graph runs)`,
      medianMs: ms,
      rate: `${((1000 * K * o.horizon) / ms).toFixed(0)} candidate-steps/s, ${((1000 * o.horizon) / ms).toFixed(1)} batched steps/s`,
      samples: s,
    },
  ];
}

async function plan(o: Opts): Promise<Row[]> {
  const wm = await open(o);
  const run = () =>
    wm.plan({
      initial: wave(wm.embedDim, 6),
      goal: wave(wm.embedDim, 7),
      horizon: o.horizon,
      samples: o.samples,
      iterations: o.iterations,
      topk: o.topk,
      seed: 1,
    });
  const s = await sample(run, o.repeat, o.warmup);
  wm.dispose();
  return [
    {
      bench: 'lewm CEM plan',
      shape: `${o.samples} samples x ${o.iterations} iterations x horizon ${o.horizon}, top ${o.topk}`,
      medianMs: median(s),
      rate: `${(median(s) / 1000).toFixed(2)} s/plan`,
      samples: s,
    },
  ];
}

export function registerLewmBenches(program: Command): void {
  for (const [name, description, run, repeat] of [
    ['lewm-step', 'LeWM encoder ms/frame and one predictor step over K candidates', step, 10],
    ['lewm-rollout', 'LeWM batched rollout (one graph run per horizon step)', rollout, 10],
    ['lewm-plan', 'one LeWM CEM plan (defaults 300 x 30 x horizon 5)', plan, 3],
  ] as const) {
    program
      .command(name)
      .description(description)
      .option('-t, --threads <n>', 'compute threads', int, 2)
      .option('-k, --candidates <n>', 'candidates per graph (step, rollout)', int, 300)
      .option('--horizon <n>', 'action steps per candidate', int, 5)
      .option('--samples <n>', 'CEM samples', int, 300)
      .option('--iterations <n>', 'CEM iterations', int, 30)
      .option('--topk <n>', 'CEM elite size', int, 30)
      .option('-r, --repeat <n>', 'timed runs', int, repeat)
      .option('-w, --warmup <n>', 'untimed runs first', count, 1)
      .option('--no-flash', 'naive attention')
      .option('--dir <path>', 'where the forged model lives', 'tmp/bench-models')
      .option('-m, --model <file>', 'a LeWM .gguf instead of the forged f32 one')
      .option('--md', 'print a markdown table (the default)')
      .option('--json', 'print every sample as JSON')
      .action(async (o: Opts) => report(await run(o), o));
  }
}
