// Timing of the separate graphs over encoder tokens at real sizes (random weights, forged once into
// --dir): the V-JEPA 2 ViT-L attentive pooler + 174-way classifier, and the V-JEPA 2 ViT-L masked
// predictor (384-d, 12 layers, 12 heads of 32). Encoder tokens are synthetic; only the head runs.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { GgmlType, forgeModel, type ModelHparams } from '@jepa/gguf';
import { EncodeOutput, Model } from '@jepa/graph';
import { machineInfo } from './machine.js';
import { median, sample } from './stats.js';
import { count, int, list } from './cli-args.js';
import { runPredictorFile } from './predictor-file-bench.js';

const FILE_TYPES: Record<string, [number, number]> = { f32: [GgmlType.F32, 0], f16: [GgmlType.F16, 1] };

/** A V-JEPA 2 ViT-L file whose encoder is cut to one block (only its width matters here). */
function vitlModel(kind: 'head' | 'predictor', dtype: string, dir: string): string {
  const types = FILE_TYPES[dtype];
  if (!types) throw new Error(`unknown dtype '${dtype}' (f32, f16)`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `vjepa2-vitl-${kind}-${dtype}.gguf`);
  if (existsSync(path)) return path;
  forgeModel('vjepa2', {
    seed: 11,
    predictor: kind === 'predictor',
    head: kind === 'head',
    matmulType: types[0],
    path,
    edit: (h: ModelHparams) => ({
      ...h,
      name: `bench V-JEPA 2 ViT-L ${kind} (random weights)`,
      fileType: types[1],
      enc: {
        ...h.enc,
        embedDim: 1024,
        nLayer: 1,
        nHead: 16,
        headDim: 64,
        ffnDim: 4096,
        patchSize: 16,
        imgSize: 256,
        nFrames: 16,
        gridSize: 16,
        gridFrames: 8,
        nPatches: 2048,
      },
      pred:
        h.pred?.kind === 'masked'
          ? {
              ...h.pred,
              embedDim: 384,
              nLayer: 12,
              nHead: 12,
              headDim: 32,
              ffnDim: 1536,
              nMaskTokens: 10,
              gridSize: 16,
              outDim: 1024,
              embedInDim: 1024,
            }
          : h.pred,
      head: h.head ? { ...h.head, nClasses: 174, depth: 3, nHead: 16, headDim: 64, ffnDim: 4096 } : h.head,
      labels: h.head ? Array.from({ length: 174 }, (_, i) => `ssv2_${i}`) : h.labels,
    }),
  });
  return path;
}

const tokens = (n: number, d: number) => Float32Array.from({ length: n * d }, (_, i) => Math.sin(i * 0.0013) * 1.2);

interface Row {
  bench: string;
  dtype: string;
  threads: number;
  shape: string;
  fileMiB: number;
  firstCallMs: number;
  medianMs: number;
  samples: number[];
}

interface Opts {
  dtype: string[];
  threads: number;
  repeat: number;
  warmup: number;
  tokens?: number;
  dir: string;
  flash: boolean;
  json?: boolean;
  full?: boolean;
  model?: string;
  withEncoder?: boolean;
}

const DEFAULT_TOKENS = 2048;

function report(rows: Row[], o: Opts): void {
  const machine = machineInfo(o.threads);
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
    return;
  }
  const lines = [
    '| bench | dtype | threads | shape | file MiB | first call ms | median ms |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.bench} | ${r.dtype} | ${r.threads} | ${r.shape} | ${r.fileMiB.toFixed(0)} | ${r.firstCallMs.toFixed(1)} | ${r.medianMs.toFixed(1)} |`,
    ),
  ];
  process.stdout.write(`${machine.summary}\n\n${lines.join('\n')}\n`);
}

async function runHead(o: Opts): Promise<Row[]> {
  const rows: Row[] = [];
  for (const dtype of o.dtype) {
    const path = vitlModel('head', dtype, o.dir);
    const model = await Model.load(path, { threads: o.threads });
    const head = model.createHeadContext({ noFlash: !o.flash });
    const n = o.tokens ?? DEFAULT_TOKENS;
    const out = new EncodeOutput(tokens(n, 1024), 1, n, 1024, 0, 0);
    const t0 = performance.now();
    await head.classify(out);
    const first = performance.now() - t0;
    const s = await sample(() => head.classify(out), o.repeat, o.warmup);
    rows.push({
      bench: 'head (ViT-L pooler, 3 SA + XA, 174 classes)',
      dtype,
      threads: o.threads,
      shape: `${n} tokens`,
      fileMiB: statSync(path).size / 2 ** 20,
      firstCallMs: first,
      medianMs: median(s),
      samples: s,
    });
    process.stderr.write(`head ${dtype}: ${median(s).toFixed(1)} ms\n`);
    head.dispose();
    model.dispose();
  }
  return rows;
}

async function runPredictor(o: Opts): Promise<Row[]> {
  if (o.model) return runPredictorFile({ ...o, model: o.model });
  const rows: Row[] = [];
  for (const dtype of o.dtype) {
    const path = vitlModel('predictor', dtype, o.dir);
    const model = await Model.load(path, { threads: o.threads });
    const pred = model.createPredictorContext({ noFlash: !o.flash });
    const n = o.tokens ?? DEFAULT_TOKENS;
    const all = Array.from({ length: n }, (_, i) => i);
    // --full: the HF default (context = target = every token, 2n rows); otherwise an even/odd split (n rows)
    const contextIds = o.full ? all : all.filter((i) => i % 2 === 0);
    const targetIds = o.full ? all : all.filter((i) => i % 2 === 1);
    const input = { tokens: tokens(n, 1024), dim: 1024, contextIds, targetIds };
    const t0 = performance.now();
    await pred.predict(input);
    const first = performance.now() - t0;
    const s = await sample(() => pred.predict(input), o.repeat, o.warmup);
    rows.push({
      bench: 'predictor (V-JEPA 2 ViT-L masked, 384-d x 12)',
      dtype,
      threads: o.threads,
      shape: `${contextIds.length} context + ${targetIds.length} target of ${n} ids`,
      fileMiB: statSync(path).size / 2 ** 20,
      firstCallMs: first,
      medianMs: median(s),
      samples: s,
    });
    process.stderr.write(`predictor ${dtype}: ${median(s).toFixed(1)} ms\n`);
    pred.dispose();
    model.dispose();
  }
  return rows;
}

export function registerHeadBenches(program: Command): void {
  for (const [name, description, run] of [
    ['head', 'V-JEPA 2 ViT-L attentive pooler + classifier over encoder tokens', runHead],
    ['predictor', 'V-JEPA 2 ViT-L masked predictor (ms per call)', runPredictor],
  ] as const) {
    const cmd = program
      .command(name)
      .description(description)
      .option('--dtype <list>', 'f32,f16', list, ['f32'])
      .option('-t, --threads <n>', 'compute threads', int, 2)
      .option('-n, --tokens <n>', `encoder tokens (default ${DEFAULT_TOKENS} = 16 frames at 256²; with --model the file's clip)`, int)
      .option('--full', 'predictor: context = target = every token (the HF default)')
      .option('-r, --repeat <n>', 'timed runs', int, 5)
      .option('-w, --warmup <n>', 'untimed runs first', count, 1)
      .option('--no-flash', 'naive attention')
      .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
      .option('--md', 'print a markdown table (the default)')
      .option('--json', 'print every sample as JSON');
    if (name === 'predictor')
      cmd
        .option('--model <gguf>', "time this file's predictor instead of the forged ViT-L one (e.g. a converted V-JEPA 2.1 G or I-JEPA ViT-g/16)")
        .option('--with-encoder', '--model: time the encoder pass the predictor reads (hierarchy for 2.1 g/G) plus the predictor');
    cmd.action(async (o: Opts) => report(await run(o), o));
  }
}
