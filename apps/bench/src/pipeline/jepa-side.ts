// This engine's side of the pipeline benchmark: the encoder alone on prepared tensors, `jepa embed`
// run as a user runs it, and the preprocessing stages one image at a time.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Model } from '@jepa/graph';
import { ModelInput, RecipeTensors, type DecoderKind } from '@jepa/input';
import { preprocessImage } from '@jepa/preprocess';
import { cliMain } from '../bins.js';
import { median } from '../stats.js';

const cli = cliMain();

const msSince = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** Images per second of the encoder (and pooling) alone, on tensors already prepared, in batches as `jepa embed` makes them. */
export async function encoderOnlyRate(modelPath: string, files: string[], threads: number, batch: number, rounds: number): Promise<number> {
  const model = await Model.load(modelPath, { threads });
  try {
    const input = new ModelInput(model.spec);
    const items = await Promise.all(files.slice(0, batch).map((f) => input.image(f)));
    while (items.length < batch) items.push(items[items.length % files.length]!);
    const size = items[0]!.data.length;
    const data = new Float32Array(batch * size);
    for (const [i, t] of items.entries()) data.set(t.data, i * size);
    const ctx = model.createContext({ maxBatch: batch });
    const run = async () => (await ctx.encode({ data, shape: [batch, ...items[0]!.shape] })).pool('cls');
    await run();
    const perImage: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      await run();
      perImage.push(msSince(t0) / batch);
    }
    ctx.dispose();
    return 1000 / median(perImage);
  } finally {
    model.dispose();
  }
}

export interface EmbedRun {
  images: number;
  /** The rate `jepa embed` reports: from its first input to its last result, the model already loaded. */
  imagesPerSecond: number;
  /** The whole command, model load and process start included. */
  wallS: number;
  maxRssMiB: number;
}

/** `jepa embed -m MODEL FOLDER -o OUT.npy --threads N`, in its own process under /usr/bin/time. */
export function runJepaEmbed(model: string, inputs: string[], threads: number, out: string, extra: string[] = []): Promise<EmbedRun> {
  const args = [
    '-f',
    'jepa-bench-time %M %e',
    process.execPath,
    cli,
    'embed',
    '-m',
    model,
    ...inputs,
    '--threads',
    String(threads),
    '-o',
    out,
    ...extra,
  ];
  return new Promise((done, fail) => {
    const child = spawn('/usr/bin/time', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => {
      const rate = /(\d+) embedded in ([\d.]+) s \(([\d.]+) items\/s\)/.exec(err);
      const time = /jepa-bench-time (\d+) ([\d.]+)/.exec(err);
      if (code !== 0 || !rate || !time) return fail(new Error(`jepa embed exited ${code}:\n${err.slice(-2000)}`));
      done({ images: Number(rate[1]), imagesPerSecond: Number(rate[3]), wallS: Number(time[2]), maxRssMiB: Number(time[1]) / 1024 });
    });
  });
}

export interface StageTimes {
  decoder: DecoderKind;
  /** Per image, ms: reading the file, decoding it to RGB, the recipe (resize, crop, normalise). */
  readMs: number[];
  decodeMs: number[];
  recipeMs: number[];
  totalMs: number[];
  megapixels: number[];
}

/** Each stage of the preprocessing, one image at a time (nothing overlapped), as Pillow's side is timed. */
export async function stageTimes(model: Model, files: string[], decoder: DecoderKind): Promise<StageTimes> {
  const input = new ModelInput(model.spec, { decoder });
  const tensors = new RecipeTensors(input.recipe);
  const t: StageTimes = { decoder, readMs: [], decodeMs: [], recipeMs: [], totalMs: [], megapixels: [] };
  for (const file of files) {
    const t0 = process.hrtime.bigint();
    const bytes = await readFile(file);
    const t1 = process.hrtime.bigint();
    const img = await input.decode(bytes);
    const t2 = process.hrtime.bigint();
    if (decoder === 'native') await tensors.image(img);
    else preprocessImage(img, input.recipe);
    const t3 = process.hrtime.bigint();
    t.readMs.push(Number(t1 - t0) / 1e6);
    t.decodeMs.push(Number(t2 - t1) / 1e6);
    t.recipeMs.push(Number(t3 - t2) / 1e6);
    t.totalMs.push(Number(t3 - t0) / 1e6);
    t.megapixels.push((img.width * img.height) / 1e6);
  }
  return t;
}
