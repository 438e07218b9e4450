// `jepa-bench pipeline`: files to embeddings as a user runs it, on two photo sets (camera-size
// photos, and the same photos at 1024 px), against the encoder alone, Pillow's preprocessing and
// transformers.js, all in one run.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Model } from '@jepa/graph';
import { ModelInput } from '@jepa/input';
import { peerModel } from '../peers/peers-bench.js';
import { median } from '../stats.js';
import { fastDecodeStages, runPillowDraft } from './fast-decode.js';
import { encoderOnlyRate, runJepaEmbed, stageTimes, type EmbedRun, type StageTimes } from './jepa-side.js';
import { ensureManySmall, ensurePhotoSets } from './photo-sets.js';
import { runPillow } from './pillow-peer.js';
import { ensureTransformersJs, runTransformersJs } from './transformers-js-peer.js';

export interface PipelineOptions {
  dir: string;
  peersDir: string;
  threads: number;
  batch: number;
  types: string[];
  rounds: number;
  tfjs: boolean;
  rss: boolean;
  /** Also run jepa embed --fast-decode, and fast decode and Pillow's draft against their full decodes. */
  fastDecode: boolean;
}

/** Rounds of (this engine, Pillow) over a set; the ratio reported is the median round's. */
const PREP_ROUNDS = 3;

/** transformers.js's weight type beside each of ours. */
const TFJS_DTYPE: Record<string, 'fp32' | 'q8' | undefined> = { f32: 'fp32', q8_0: 'q8' };

export interface ThroughputRow {
  set: string;
  weights: string;
  encoderOnly: number;
  embed: EmbedRun;
  /** jepa embed --fast-decode, run right after `embed` (with --fast-decode only). */
  embedFast: EmbedRun | null;
  tfjs: number | null;
}

export interface PrepRow {
  set: string;
  images: number;
  megapixels: { min: number; max: number; mean: number };
  native: StageTimes;
  js: StageTimes;
  pillow: { medianMs: number; meanMs: number };
  /** Median over the rounds of this engine's mean ms / Pillow's mean ms in the same round. */
  ratioToPillow: number;
  roundRatios: number[];
}

/** Fast decode against the full decode, and Pillow's draft against Pillow's, on one set. */
export interface FastDecodeRow {
  set: string;
  images: number;
  /** How many files each DCT shrink was used on, ours and Pillow's draft (the same rule). */
  shrinks: Record<string, number>;
  pillowShrinks: Record<string, number>;
  /** Mean ms per image: decode + recipe, full and fast. */
  fullMs: number;
  fastMs: number;
  decodeFullMs: number;
  decodeFastMs: number;
  pillowFullMs: number;
  pillowDraftMs: number;
  /** Over every byte of every file's recipe output (resize + crop, 8-bit), against its full decode. */
  maxAbs: number;
  meanAbs: number;
  pillowMaxAbs: number;
  pillowMeanAbs: number;
  pillow: string;
}

export interface PipelineReport {
  throughput: ThroughputRow[];
  prep: PrepRow[];
  fastDecode: FastDecodeRow[];
  rss: { images: number; maxRssMiB: number }[];
}

const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;

function counts(v: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of v) out[String(x)] = (out[String(x)] ?? 0) + 1;
  return out;
}

export async function runPipelineBench(o: PipelineOptions, log: (s: string) => void): Promise<PipelineReport> {
  const dir = resolve(o.dir);
  mkdirSync(dir, { recursive: true });
  const sets = ensurePhotoSets(join(dir, 'photos'), log);
  const setFiles: [string, string[]][] = [
    ['1024 px', sets.small],
    ['camera size', sets.large],
  ];
  const models = new Map<string, string>();
  for (const t of o.types) models.set(t, await peerModel(resolve(o.peersDir), t, log));
  const tfjsDir = join(dir, 'tfjs');

  const report: PipelineReport = { throughput: [], prep: [], fastDecode: [], rss: [] };
  const f32 = models.get('f32') ?? [...models.values()][0]!;
  const recipeModel = await Model.load(f32, { threads: o.threads });
  try {
    const recipe = new ModelInput(recipeModel.spec).recipe;
    if (o.tfjs) await ensureTransformersJs(tfjsDir, log, recipe);
    for (const [set, files] of setFiles) {
      log(`${set}: preprocessing, one image at a time: this engine and Pillow in ${PREP_ROUNDS} alternating rounds, then the JS path`);
      const rounds: { native: StageTimes; pillow: { medianMs: number; meanMs: number } }[] = [];
      for (let r = 0; r < PREP_ROUNDS; r++) {
        const native = await stageTimes(recipeModel, files, 'native');
        rounds.push({ native, pillow: await runPillow(recipe, files, 1) });
      }
      const ratios = rounds.map((r) => mean(r.native.totalMs) / r.pillow.meanMs);
      const middle = rounds[ratios.indexOf([...ratios].sort((a, b) => a - b)[PREP_ROUNDS >> 1]!)]!;
      const js = await stageTimes(recipeModel, files, 'js');
      const native = middle.native;
      const mp = native.megapixels;
      report.prep.push({
        set,
        images: files.length,
        megapixels: { min: Math.min(...mp), max: Math.max(...mp), mean: mean(mp) },
        native,
        js,
        pillow: { medianMs: middle.pillow.medianMs, meanMs: middle.pillow.meanMs },
        ratioToPillow: median(ratios),
        roundRatios: ratios,
      });
      if (o.fastDecode) {
        log(`${set}: fast decode against the full decode, then Pillow's draft against Pillow's, one image at a time`);
        const ours = await fastDecodeStages(recipe, files);
        const pil = await runPillowDraft(recipe, files);
        report.fastDecode.push({
          set,
          images: files.length,
          shrinks: counts(ours.shrinks),
          pillowShrinks: counts(pil.files.map((f) => f.shrink)),
          fullMs: mean(ours.full.totalMs),
          fastMs: mean(ours.fast.totalMs),
          decodeFullMs: mean(ours.full.decodeMs),
          decodeFastMs: mean(ours.fast.decodeMs),
          pillowFullMs: mean(pil.files.map((f) => f.fullMs)),
          pillowDraftMs: mean(pil.files.map((f) => f.draftMs)),
          maxAbs: Math.max(...ours.maxAbs),
          meanAbs: mean(ours.meanAbs),
          pillowMaxAbs: Math.max(...pil.files.map((f) => f.maxAbs)),
          pillowMeanAbs: mean(pil.files.map((f) => f.meanAbs)),
          pillow: pil.pillow,
        });
      }
    }
  } finally {
    recipeModel.dispose();
  }

  for (const [set, files] of setFiles) {
    for (const [weights, model] of models) {
      log(`${set}, ${weights}: encoder alone, then jepa embed, then transformers.js`);
      const encoderOnly = await encoderOnlyRate(model, files, o.threads, o.batch, o.rounds);
      // A set shorter than a few batches would decode whole before its only graph runs, with nothing
      // to overlap; the files are listed again (and decoded again) up to four batches.
      const inputs = Array.from({ length: Math.max(1, Math.ceil((4 * o.batch) / files.length)) }, () => files).flat();
      const embed = await runJepaEmbed(model, inputs, o.threads, join(dir, 'out.npy'), ['--batch', String(o.batch)]);
      const embedFast = o.fastDecode
        ? await runJepaEmbed(model, inputs, o.threads, join(dir, 'out-fast.npy'), ['--batch', String(o.batch), '--fast-decode'])
        : null;
      const dtype = TFJS_DTYPE[weights];
      const tfjs = o.tfjs && dtype ? (await runTransformersJs(tfjsDir, { dtype, files, threads: o.threads, warmup: 2 })).imagesPerSecond : null;
      report.throughput.push({ set, weights, encoderOnly, embed, embedFast, tfjs });
    }
  }

  if (o.rss) {
    const q8 = models.get('q8_0') ?? f32;
    const many = ensureManySmall(join(dir, 'photos-many'), 1000, log);
    for (const n of [100, 1000]) {
      log(`peak RSS: jepa embed of ${n} images`);
      const run = await runJepaEmbed(q8, [...many.slice(0, n)], o.threads, join(dir, 'out-rss.npy'), ['--batch', String(o.batch)]);
      report.rss.push({ images: n, maxRssMiB: run.maxRssMiB });
    }
  }
  return report;
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);

export function pipelineMarkdown(r: PipelineReport): string {
  const out: string[] = [];
  out.push(
    '| set | weights | encoder alone (img/s) | jepa embed (img/s) | embed / encoder | transformers.js (img/s) | jepa / transformers.js | embed wall s | peak RSS MiB |',
  );
  out.push('|---|---|---|---|---|---|---|---|---|');
  for (const t of r.throughput) {
    const tf = t.tfjs === null ? '—' : f2(t.tfjs);
    const vs = t.tfjs === null ? '—' : `${f2(t.embed.imagesPerSecond / t.tfjs)}×`;
    out.push(
      `| ${t.set} | ${t.weights} | ${f2(t.encoderOnly)} | ${f2(t.embed.imagesPerSecond)} | ${f2(t.embed.imagesPerSecond / t.encoderOnly)}× | ${tf} | ${vs} | ${f1(t.embed.wallS)} | ${Math.round(t.embed.maxRssMiB)} |`,
    );
  }
  out.push('');
  out.push(
    `Preprocessing, one image at a time, ms per image (median / mean): read, decode to RGB, recipe (resize, crop, normalise). This engine and Pillow alternate for ${PREP_ROUNDS} rounds; the times are the median round's, the ratio the median of the per-round ratios (all rounds in brackets).`,
  );
  out.push('');
  out.push(
    '| set | images | MP (min–max, mean) | jepa read | jepa decode | jepa recipe | jepa total | jepa JS path total | Pillow total | jepa / Pillow (mean) |',
  );
  out.push('|---|---|---|---|---|---|---|---|---|---|');
  const mm = (v: number[]) => `${f1(median(v))} / ${f1(mean(v))}`;
  for (const p of r.prep) {
    const n = p.native;
    out.push(
      `| ${p.set} | ${p.images} | ${f1(p.megapixels.min)}–${f1(p.megapixels.max)}, ${f1(p.megapixels.mean)} | ${mm(n.readMs)} | ${mm(n.decodeMs)} | ${mm(n.recipeMs)} | ${mm(n.totalMs)} | ${mm(p.js.totalMs)} | ${f1(p.pillow.medianMs)} / ${f1(p.pillow.meanMs)} | ${f2(p.ratioToPillow)}× (${p.roundRatios.map(f2).join(', ')}) |`,
    );
  }
  out.push('');
  out.push(
    'Where the time of `jepa embed` goes, ms per image: the encoder alone at its own rate, and the preprocessing stages (means, one at a time) that run beside it on the libuv pool; "not hidden" is what embed takes beyond the encoder.',
  );
  out.push('');
  out.push('| set | weights | jepa embed | encoder alone | not hidden | read | decode | recipe |');
  out.push('|---|---|---|---|---|---|---|---|');
  for (const t of r.throughput) {
    const p = r.prep.find((x) => x.set === t.set);
    const embedMs = 1000 / t.embed.imagesPerSecond;
    const encMs = 1000 / t.encoderOnly;
    const stage = (v: number[] | undefined) => (v ? f1(mean(v)) : '—');
    out.push(
      `| ${t.set} | ${t.weights} | ${f1(embedMs)} | ${f1(encMs)} | ${f1(embedMs - encMs)} | ${stage(p?.native.readMs)} | ${stage(p?.native.decodeMs)} | ${stage(p?.native.recipeMs)} |`,
    );
  }
  if (r.fastDecode.length > 0) out.push('', fastDecodeMarkdown(r));
  if (r.rss.length > 0) {
    out.push('');
    out.push('| jepa embed, 1024-px images | peak RSS MiB |');
    out.push('|---|---|');
    for (const s of r.rss) out.push(`| ${s.images} | ${Math.round(s.maxRssMiB)} |`);
    if (r.rss.length === 2)
      out.push(`\n${r.rss[1]!.images} images peak ${f1((100 * r.rss[1]!.maxRssMiB) / r.rss[0]!.maxRssMiB - 100)} % above ${r.rss[0]!.images}.`);
  }
  return out.join('\n');
}

const shrinkList = (c: Record<string, number>) =>
  Object.entries(c)
    .sort(([a], [b]) => Number(b) - Number(a))
    .map(([s, n]) => `1/${s}: ${n}`)
    .join(', ');

/** The --fast-decode tables: end to end with and without it, then decode and pixels against the full decode. */
function fastDecodeMarkdown(r: PipelineReport): string {
  const out: string[] = [];
  out.push('`jepa embed --fast-decode` against `jepa embed` (run one after the other) and the encoder alone, img/s.');
  out.push('');
  out.push('| set | weights | encoder alone | jepa embed | --fast-decode | embed / encoder | fast / encoder | fast / embed |');
  out.push('|---|---|---|---|---|---|---|---|');
  for (const t of r.throughput) {
    if (!t.embedFast) continue;
    const e = t.embed.imagesPerSecond;
    const f = t.embedFast.imagesPerSecond;
    out.push(
      `| ${t.set} | ${t.weights} | ${f2(t.encoderOnly)} | ${f2(e)} | ${f2(f)} | ${f2(e / t.encoderOnly)}× | ${f2(f / t.encoderOnly)}× | ${f2(f / e)}× |`,
    );
  }
  out.push('');
  out.push(
    "Fast decode against the full decode, and Pillow's draft against Pillow's full decode, one image at a time (each file both ways, alternating which goes first): mean ms per image (decode + recipe; this engine's decode alone in brackets), and the recipe's 8-bit output (resize + centre crop) against the full decode's, max and mean absolute difference over every byte of every file.",
  );
  out.push('');
  out.push(
    '| set | images | shrinks used | jepa full | jepa fast | fast / full | Pillow full | Pillow draft | draft / full | jepa fast: max, mean abs | Pillow draft: max, mean abs |',
  );
  out.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const d of r.fastDecode) {
    const same = shrinkList(d.shrinks) === shrinkList(d.pillowShrinks) ? '' : ` (Pillow: ${shrinkList(d.pillowShrinks)})`;
    out.push(
      `| ${d.set} | ${d.images} | ${shrinkList(d.shrinks)}${same} | ${f1(d.fullMs)} (${f1(d.decodeFullMs)}) | ${f1(d.fastMs)} (${f1(d.decodeFastMs)}) | ${f2(d.fastMs / d.fullMs)}× | ${f1(d.pillowFullMs)} | ${f1(d.pillowDraftMs)} | ${f2(d.pillowDraftMs / d.pillowFullMs)}× | ${d.maxAbs}, ${d.meanAbs.toFixed(3)} | ${d.pillowMaxAbs}, ${d.pillowMeanAbs.toFixed(3)} |`,
    );
  }
  return out.join('\n');
}
