// Timing of dino.txt's text tower at real size (random weights, forged once into --dir): 24 causal blocks of width
// 1280 with 20 heads, CLIP's 49,408-token vocabulary (fixtures/text's merges), the projection to 2048. The backbone
// is cut to one block (only its width, 1024, matters: the aligned vectors are 2·1024 wide). One text per call, of
// 8 tokens (a short query) and of 77 (the context); f32, and an 8-bit type made by jepa-quantize from the f32 file.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { forgeModel, type ModelHparams } from '@jepa/gguf';
import { Model } from '@jepa/graph';
import { quantizeFile } from '@jepa/quantize';
import { readClipVocab } from '@jepa/text';
import { count, int, intList, list } from './cli-args.js';
import { machineInfo } from './machine.js';
import { median, sample } from './stats.js';

const f32 = Math.fround;

async function merges(): Promise<string[]> {
  // the repository's fixtures, loaded when the command runs: an installed @jepa/bench has neither
  const { fixturePath } = await import('@jepa/testing');
  const vocab = readClipVocab(fixturePath('text', 'clip-merges-48894.txt.gz'));
  // the rank table's keys are the merges' own lines ('first second'), in rank order
  return [...vocab.ranks.keys()];
}

/** The backbone: one block of ViT-L's width (the text tower's timing), or the whole ViT-L/16 (an image's). */
export type BenchBackbone = 'one-block' | 'vitl16';

const VITL16 = { nLayer: 24, patchSize: 16, imgSize: 224, gridSize: 14, nPatches: 196, nReg: 4 };

const BACKBONES: Record<BenchBackbone, { file: string; enc: Partial<ModelHparams['enc']>; pre: Partial<ModelHparams['pre']> }> = {
  'one-block': { file: 'dinotxt-text', enc: { nLayer: 1 }, pre: {} },
  vitl16: { file: 'dinotxt-vitl16', enc: VITL16, pre: { resize: { mode: 'short', size: 256 }, crop: 224, resample: 'bilinear' } },
};

/** The f32 file (forged once), or its `type` quantization beside it. */
export async function textModel(dtype: string, dir: string, backbone: BenchBackbone = 'one-block'): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const { file, enc, pre } = BACKBONES[backbone];
  const base = join(dir, `${file}-f32.gguf`);
  if (!existsSync(base)) {
    const m = await merges();
    forgeModel('dinov3', {
      seed: 51,
      path: base,
      edit: (h: ModelHparams) => ({
        ...h,
        name: 'bench dino.txt text tower (random weights)',
        enc: { ...h.enc, embedDim: 1024, nHead: 16, headDim: 64, ffnDim: 4096, ...enc },
        pre: { ...h.pre, ...pre },
        text: {
          embedDim: 1280,
          nLayer: 24,
          nHead: 20,
          headDim: 64,
          ffnDim: 5120,
          context: 77,
          lnEps: f32(1e-5),
          act: 'gelu',
          outDim: 2048,
          logitScale: f32(4.6),
          merges: m,
          vocabSize: 512 + m.length + 2,
          startId: 512 + m.length,
          endId: 512 + m.length + 1,
          visionNLayer: 2,
          visionFfnDim: 2752,
          visionLnEps: f32(1e-5),
        },
      }),
    });
  }
  if (dtype === 'f32') return base;
  const path = join(dir, `${file}-${dtype}.gguf`);
  if (!existsSync(path)) await quantizeFile(base, path, dtype as Parameters<typeof quantizeFile>[2]);
  return path;
}

interface Opts {
  dtype: string[];
  tokens: number[];
  threads: number;
  repeat: number;
  warmup: number;
  dir: string;
  flash: boolean;
  json?: boolean;
}

interface Row {
  dtype: string;
  tokens: number;
  threads: number;
  fileMiB: number;
  firstCallMs: number;
  medianMs: number;
  samples: number[];
}

async function run(o: Opts): Promise<Row[]> {
  const rows: Row[] = [];
  for (const dtype of o.dtype) {
    const path = await textModel(dtype, o.dir);
    const model = await Model.load(path, { threads: o.threads });
    const text = model.createTextContext({ noFlash: !o.flash });
    const t = model.spec.text!;
    for (const n of o.tokens) {
      if (n < 2 || n > t.context) throw new Error(`--tokens ${n}: 2 to ${t.context}`);
      const row = Array.from({ length: n }, (_, i) => (i === 0 ? t.startId : i === n - 1 ? t.endId : 320 + i));
      const t0 = performance.now();
      await text.embed([row]);
      const first = performance.now() - t0;
      const s = await sample(() => text.embed([row]), o.repeat, o.warmup);
      rows.push({
        dtype,
        tokens: n,
        threads: o.threads,
        fileMiB: statSync(path).size / 2 ** 20,
        firstCallMs: first,
        medianMs: median(s),
        samples: s,
      });
      process.stderr.write(`text ${dtype} ${n} tokens: ${median(s).toFixed(1)} ms\n`);
    }
    await text.dispose();
    await model.dispose();
  }
  return rows;
}

function report(rows: Row[], o: Opts): void {
  const machine = machineInfo(o.threads);
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
    return;
  }
  const lines = [
    '| dtype | tokens | threads | file MiB | first call ms | median ms |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.dtype} | ${r.tokens} | ${r.threads} | ${r.fileMiB.toFixed(0)} | ${r.firstCallMs.toFixed(1)} | ${r.medianMs.toFixed(1)} |`,
    ),
  ];
  process.stdout.write(`${machine.summary}\n\n${lines.join('\n')}\n`);
}

export function registerTextBench(program: Command): void {
  program
    .command('text')
    .description("dino.txt's text tower at real size (24 x 1280, vocab 49408): ms per text")
    .option('--dtype <list>', 'f32 and jepa-quantize types (q8_0, q8_row, ...)', list, ['f32', 'q8_0'])
    .option('--tokens <list>', 'tokens per text, start and end included', intList, [8, 77])
    .option('-t, --threads <n>', 'compute threads', int, 2)
    .option('-r, --repeat <n>', 'timed runs', int, 10)
    .option('-w, --warmup <n>', 'untimed runs first', count, 1)
    .option('--no-flash', 'naive attention')
    .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
    .option('--json', 'print every sample as JSON')
    .action(async (o: Opts) => report(await run(o), o));
}
