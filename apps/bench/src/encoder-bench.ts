// Encoder timing over a cartesian sweep of presets x dtypes x threads x batch: compute ms per
// item, graph-build ms (first call minus a warm call), items/s and peak RSS.
import { statSync } from 'node:fs';
import { Model } from '@jepa/graph';
import { presetModel, PRESETS } from './presets.js';
import { median, sample, timeMs } from './stats.js';

export interface EncoderBenchOptions {
  models: string[];
  dtypes: string[];
  threads: number[];
  batches: number[];
  repeat: number;
  warmup: number;
  dir: string;
  noFlash: boolean;
}

export interface EncoderRow {
  model: string;
  dtype: string;
  threads: number;
  batch: number;
  tokens: number;
  fileMiB: number;
  firstCallMs: number;
  msPerItem: number;
  itemsPerSecond: number;
  peakRssMiB: number;
  samples: number[];
}

function input(batch: number, frames: number, size: number): { data: Float32Array; shape: number[] } {
  const shape = frames > 1 ? [batch, 3, frames, size, size] : [batch, 3, size, size];
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = Math.sin(i * 0.001) * 1.5;
  return { data, shape };
}

export async function runEncoderBench(o: EncoderBenchOptions, log: (s: string) => void): Promise<EncoderRow[]> {
  const rows: EncoderRow[] = [];
  for (const name of o.models) {
    const p = PRESETS[name]!;
    for (const dtype of o.dtypes) {
      const path = presetModel(name, dtype, o.dir);
      for (const threads of o.threads) {
        const model = await Model.load(path, { threads });
        for (const batch of p.frames > 1 ? [1] : o.batches) {
          const ctx = model.createContext({ noFlash: o.noFlash, maxBatch: batch });
          const x = input(batch, p.frames, p.size);
          const first = await timeMs(() => ctx.encode(x));
          const samples = (await sample(() => ctx.encode(x), o.repeat, o.warmup)).map((ms) => ms / batch);
          const msPerItem = median(samples);
          const out = await ctx.encode(x);
          const row: EncoderRow = {
            model: p.title, dtype, threads, batch, tokens: out.nTokens,
            fileMiB: statSync(path).size / 2 ** 20,
            firstCallMs: first, msPerItem, itemsPerSecond: 1000 / msPerItem,
            peakRssMiB: process.resourceUsage().maxRSS / 1024, samples,
          };
          rows.push(row);
          log(`${p.title} ${dtype} t${threads} b${batch}: ${msPerItem.toFixed(1)} ms/item`);
          ctx.dispose();
        }
        model.dispose();
      }
    }
  }
  return rows;
}

export function encoderMarkdown(rows: EncoderRow[]): string {
  return [
    '| model | dtype | threads | batch | tokens | file MiB | first call ms | ms/item (median) | items/s | peak RSS MiB |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.model} | ${r.dtype} | ${r.threads} | ${r.batch} | ${r.tokens} | ${r.fileMiB.toFixed(0)} | ${r.firstCallMs.toFixed(0)} | ${r.msPerItem.toFixed(1)} | ${r.itemsPerSecond.toFixed(2)} | ${r.peakRssMiB.toFixed(0)} |`,
    ),
  ].join('\n');
}
