// Encoder timing over a cartesian sweep of presets x dtypes x threads x batch: compute ms per
// item, graph-build ms (first call minus a warm call), items/s and peak RSS; and each dtype's tokens
// against the first dtype's on the same input (token cosine, worst and median).
import { statSync } from 'node:fs';
import { loadModelSpec } from '@jepa/gguf';
import { compareTokens, Model, timingsByOp, type EncoderContext } from '@jepa/graph';
import { devices, resolveDevice } from '@jepa/native';
import { presetModel, PRESETS } from './presets.js';
import { median, sample, timeMs } from './stats.js';

export interface EncoderBenchOptions {
  models: string[];
  dtypes: string[];
  threads: number[];
  batches: number[];
  /** Input sizes and frame counts to sweep; empty lists mean the preset's own. */
  sizes: number[];
  frames: number[];
  repeat: number;
  warmup: number;
  dir: string;
  noFlash: boolean;
  /** Also compute `repeat` runs node by node and report time per op (EncoderContext.profile). */
  profile?: boolean;
  /** Where the model runs (Model.load's device: cpu, cuda:0, ...); the CPU by default. */
  device?: string;
  /** Called with each row as it is measured. */
  onRow?: (row: EncoderRow) => void;
}

export interface OpTime {
  op: string;
  /** ms per item, the median over the profiled runs. */
  ms: number;
  nodes: number;
  share: number;
}

export interface EncoderRow {
  model: string;
  dtype: string;
  threads: number;
  batch: number;
  size: number;
  frames: number;
  tokens: number;
  fileMiB: number;
  firstCallMs: number;
  /** Building, validating and allocating the graphs for the input shape (EncoderContext.prepare). */
  graphSetupMs: number;
  msPerItem: number;
  itemsPerSecond: number;
  peakRssMiB: number;
  /** The ggml device the model ran on. */
  device: string;
  /** On a GPU: device memory taken while the context was alive (free before the load minus free after the runs). */
  deviceMiB?: number;
  samples: number[];
  /** With profile: time per op, and the sum over every node (ms per item). */
  ops?: OpTime[];
  profiledMs?: number;
  /** Token cosine against the first dtype of the sweep on the same input (absent for that one). */
  versus?: { dtype: string; minCos: number; medianCos: number };
}

function input(batch: number, frames: number, size: number): { data: Float32Array; shape: number[] } {
  const shape = frames > 1 ? [batch, 3, frames, size, size] : [batch, 3, size, size];
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = Math.sin(i * 0.001) * 1.5;
  return { data, shape };
}

/** A GPU's free memory in bytes (null on the CPU, where RSS says it). */
function freeMemory(device: string | undefined): number | null {
  const name = resolveDevice(device);
  const d = devices().find((x) => x.name === name);
  return d && d.type !== 'cpu' ? d.memoryFree : null;
}

export async function runEncoderBench(o: EncoderBenchOptions, log: (s: string) => void): Promise<EncoderRow[]> {
  const rows: EncoderRow[] = [];
  for (const name of o.models) {
    const firsts = new Map<string, { dtype: string; tokens: Float32Array; dim: number }>();
    // a preset (forged with random weights), or a .gguf file as it is
    const file = name.endsWith('.gguf') ? name : null;
    const spec = file ? loadModelSpec(file) : null;
    const p = spec ? { title: spec.name, size: spec.enc.imgSize, frames: spec.enc.nFrames } : PRESETS[name];
    if (!p) throw new Error(`unknown model '${name}': a preset (${Object.keys(PRESETS).join(', ')}) or a .gguf file`);
    for (const dtype of file ? [`file type ${spec!.fileType ?? 0}`] : o.dtypes) {
      const path = file ?? presetModel(name, dtype, o.dir);
      for (const threads of o.threads) {
        const freeBefore = freeMemory(o.device);
        const model = await Model.load(path, { threads, ...(o.device ? { device: o.device } : {}) });
        for (const size of o.sizes.length ? o.sizes : [p.size])
          for (const frames of p.frames > 1 && o.frames.length ? o.frames : [p.frames])
            for (const batch of o.batches) {
              const ctx = model.createContext({ noFlash: o.noFlash, maxBatch: batch });
              const x = input(batch, frames, size);
              const graphSetupMs = await timeMs(() => ctx.prepare(x.shape));
              const firstCallMs = await timeMs(() => ctx.encode(x));
              const samples = (await sample(() => ctx.encode(x), o.repeat, o.warmup)).map((ms) => ms / batch);
              const msPerItem = median(samples);
              const out = await ctx.encode(x);
              const freeAfter = freeMemory(o.device);
              const key = `${threads}|${size}|${frames}|${batch}`;
              const first = firsts.get(key);
              if (!first) firsts.set(key, { dtype, tokens: out.tokens, dim: out.dim });
              const versus = first && first.dim === out.dim ? { dtype: first.dtype, ...compareTokens(out.tokens, first.tokens, out.dim) } : undefined;
              const row: EncoderRow = {
                model: p.title,
                dtype,
                threads,
                batch,
                size,
                frames,
                tokens: out.nTokens,
                fileMiB: statSync(path).size / 2 ** 20,
                firstCallMs,
                graphSetupMs,
                msPerItem,
                itemsPerSecond: 1000 / msPerItem,
                peakRssMiB: process.resourceUsage().maxRSS / 1024,
                device: model.device,
                ...(freeBefore !== null && freeAfter !== null ? { deviceMiB: (freeBefore - freeAfter) / 2 ** 20 } : {}),
                samples,
                ...(versus ? { versus: { dtype: versus.dtype, minCos: versus.minCos, medianCos: versus.medianCos } } : {}),
              };
              if (o.profile) Object.assign(row, await profileOps(ctx, x, batch, o.repeat));
              rows.push(row);
              o.onRow?.(row);
              log(`${p.title} ${dtype} ${size}px${frames > 1 ? ` ${frames}f` : ''} t${threads} b${batch}: ${msPerItem.toFixed(1)} ms/item`);
              ctx.dispose();
            }
        model.dispose();
      }
    }
  }
  return rows;
}

async function profileOps(
  ctx: EncoderContext,
  x: { data: Float32Array; shape: number[] },
  batch: number,
  runs: number,
): Promise<{ ops: OpTime[]; profiledMs: number }> {
  const perOp = new Map<string, { ms: number[]; nodes: number }>();
  const totals: number[] = [];
  for (let r = 0; r < runs; r++) {
    const { nodes } = await ctx.profile(x);
    totals.push(nodes.reduce((a, t) => a + t.ms, 0) / batch);
    for (const row of timingsByOp(nodes)) {
      const acc = perOp.get(row.op) ?? { ms: [], nodes: row.nodes };
      acc.ms.push(row.ms / batch);
      perOp.set(row.op, acc);
    }
  }
  const profiledMs = median(totals);
  const ops = [...perOp.entries()]
    .map(([op, v]) => ({ op, ms: median(v.ms), nodes: v.nodes, share: median(v.ms) / profiledMs }))
    .sort((a, b) => b.ms - a.ms);
  return { ops, profiledMs };
}

export function opsMarkdown(rows: EncoderRow[]): string {
  return rows
    .filter((r) => r.ops)
    .map((r) =>
      [
        `${r.model}, ${r.dtype}, batch ${r.batch}: ${r.profiledMs!.toFixed(1)} ms per item node by node (${r.msPerItem.toFixed(1)} as one graph)`,
        '',
        '| op | ms per item | nodes | share |',
        '|---|---|---|---|',
        ...r.ops!.map((o) => `| ${o.op} | ${o.ms.toFixed(2)} | ${o.nodes} | ${(100 * o.share).toFixed(1)} % |`),
      ].join('\n'),
    )
    .join('\n\n');
}

export function encoderMarkdown(rows: EncoderRow[]): string {
  return [
    '| model | dtype | input | device | threads | batch | tokens | file MiB | graph setup ms | ms/item (median) | items/s | peak RSS MiB | token cosine vs the first dtype (worst / median) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.model} | ${r.dtype} | ${r.size}²${r.frames > 1 ? ` × ${r.frames}f` : ''} | ${r.device}${r.deviceMiB !== undefined ? ` (${r.deviceMiB.toFixed(0)} MiB)` : ''} | ${r.threads} | ${r.batch} | ${r.tokens} | ${r.fileMiB.toFixed(0)} | ${r.graphSetupMs.toFixed(1)} | ${r.msPerItem.toFixed(1)} | ${r.itemsPerSecond.toFixed(2)} | ${r.peakRssMiB.toFixed(0)} | ${r.versus ? `${r.versus.minCos.toFixed(6)} / ${r.versus.medianCos.toFixed(6)} (vs ${r.versus.dtype})` : '—'} |`,
    ),
  ].join('\n');
}
