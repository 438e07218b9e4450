// The I-JEPA and V-JEPA (v1) pretraining predictors (fixtures/reference/{ijepa,vjepa}_pred): Meta's
// .pth.tar converted here, run by the engine from given tokens and through the encoder, and judged
// against the float64 reference; the recorded wrong-position outputs and the wrong mask token /
// encoder entry must fail the same judge.
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { compareTokens, contextOnlyTokens, judge, Model, policyRow, predictorTokens, type FamilyClass, type PredictOutput } from '@jepa/graph';
import { readNpy } from '@jepa/preprocess';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCheckpoint, type ConvertOptions, type WeightDtype } from '../src/index.js';
import { tempDir } from './fixtures.js';
import { manifestOf, npy, REFERENCE } from '@jepa/testing';

interface Case {
  folder: 'ijepa_pred' | 'vjepa_pred';
  ckpt: string;
  familyClass: FamilyClass;
  options: ConvertOptions;
}

const CASES: Case[] = [
  { folder: 'ijepa_pred', ckpt: 'ijepa_pred_fixture.pth.tar', familyClass: 'image', options: {} },
  // the predictor's context features are the `encoder` entry's; the vjepa default is target_encoder
  { folder: 'vjepa_pred', ckpt: 'vjepa_pred_fixture.pth.tar', familyClass: 'video', options: { entry: 'encoder' } },
];

const OUT = tempDir();
const models = new Map<string, Model>();
const ids = (folder: string, file: string) => Array.from(readNpy(join(REFERENCE, folder, file)).data as BigInt64Array, Number);

async function convert(c: Case, dtype: WeightDtype, extra: ConvertOptions = {}): Promise<string> {
  const path = join(OUT, `${c.folder}-${dtype}-${extra.entry ?? c.options.entry ?? 'default'}.gguf`);
  const nHead = manifestOf(c.folder).hparams.n_head as number;
  await convertCheckpoint(join(REFERENCE, c.folder, c.ckpt), path, { nHead, ...c.options, ...extra, dtype });
  return path;
}

async function model(path: string): Promise<Model> {
  let m = models.get(path);
  if (!m) {
    m = await Model.load(path, { threads: 2 });
    models.set(path, m);
  }
  return m;
}

async function predictFromTokens(path: string, c: Case, maskIndex?: number): Promise<PredictOutput> {
  const m = await model(path);
  const tokens = npy(c.folder, 'tokens.npy').data;
  const ctx = m.createPredictorContext();
  try {
    return await ctx.predict({
      tokens,
      dim: m.spec.enc.embedDim,
      contextIds: ids(c.folder, 'context_ids.npy'),
      targetIds: ids(c.folder, 'target_ids.npy'),
      ...(maskIndex !== undefined ? { maskIndex } : {}),
    });
  } finally {
    ctx.dispose();
  }
}

/** What `jepa predict` runs: the encoder over the whole input, its context rows into the predictor. */
async function predictFromInput(path: string, c: Case): Promise<PredictOutput> {
  const m = await model(path);
  const enc = m.createContext();
  const pred = m.createPredictorContext();
  try {
    const tokens = await enc.encode(npy(c.folder, 'input.npy'));
    return await pred.predict({
      ...predictorTokens(tokens),
      contextIds: ids(c.folder, 'context_ids.npy'),
      targetIds: ids(c.folder, 'target_ids.npy'),
    });
  } finally {
    enc.dispose();
    pred.dispose();
  }
}

/** Meta's training path: the encoder over the context tokens alone (encoder(x, masks_enc)), then the predictor. */
async function predictContextOnly(path: string, c: Case): Promise<PredictOutput> {
  const m = await model(path);
  const enc = m.createContext();
  const pred = m.createPredictorContext();
  try {
    const input = npy(c.folder, 'input.npy');
    const contextIds = ids(c.folder, 'context_ids.npy');
    const out = await enc.encode(input, { keep: contextIds });
    return await pred.predict({ ...contextOnlyTokens(m.spec, input.shape, out, contextIds), contextIds, targetIds: ids(c.folder, 'target_ids.npy') });
  } finally {
    enc.dispose();
    pred.dispose();
  }
}

function verdict(c: Case, dtype: WeightDtype, out: PredictOutput, golden: string) {
  const row = policyRow('cpu', c.familyClass, dtype === 'f32' ? 'f32' : 'f16');
  return judge(row, compareTokens(out.targets, npy(c.folder, golden).data, out.outDim));
}

const paths = new Map<string, string>();
beforeAll(async () => {
  for (const c of CASES) for (const dtype of ['f32', 'f16'] as const) paths.set(`${c.folder}:${dtype}`, await convert(c, dtype));
});

afterAll(() => {
  for (const m of models.values()) m.dispose();
});

describe.each(CASES)('$folder', (c) => {
  it('converts the predictor entry: table positions, the mask tokens, heads = encoder heads', () => {
    const m = manifestOf(c.folder).hparams as {
      n_head: number;
      patch_grid: number[];
      predictor: { embed_dim: number; depth: number; mask_tokens: string[] };
    };
    const spec = loadModelSpec(paths.get(`${c.folder}:f32`)!);
    const [t, h, w] = m.patch_grid as [number, number, number];
    expect(spec.pred).toMatchObject({
      kind: 'masked',
      pos: 'table',
      rope: null,
      posRows: t * h * w,
      nHead: m.n_head,
      embedDim: m.predictor.embed_dim,
      nLayer: m.predictor.depth,
      nMaskTokens: m.predictor.mask_tokens.length,
      outDim: spec.enc.embedDim,
    });
    expect(spec.tensors.get('pred.pos_embed')?.shape).toEqual([m.predictor.embed_dim, t * h * w]);
  });

  for (const dtype of ['f32', 'f16'] as const) {
    it(`${dtype}: predictions from the given tokens match the golden`, async () => {
      const v = verdict(c, dtype, await predictFromTokens(paths.get(`${c.folder}:${dtype}`)!, c), 'targets.npy');
      console.log(`${c.folder} ${dtype} targets: ${v.summary}`);
      expect(v.failures).toEqual([]);
    });
  }

  it('f32: through the encoder (the context rows of the whole input) matches the golden', async () => {
    const v = verdict(c, 'f32', await predictFromInput(paths.get(`${c.folder}:f32`)!, c), 'targets_from_input.npy');
    console.log(`${c.folder} f32 through the encoder: ${v.summary}`);
    expect(v.failures).toEqual([]);
  });

  it("f32: the context-only encoder (Meta's training path) matches its golden, and the whole-input path fails it", async () => {
    const path = paths.get(`${c.folder}:f32`)!;
    const v = verdict(c, 'f32', await predictContextOnly(path, c), 'targets_masked_encoder.npy');
    console.log(`${c.folder} f32 context-only encoder: ${v.summary}`);
    expect(v.failures).toEqual([]);
    const whole = verdict(c, 'f32', await predictFromInput(path, c), 'targets_masked_encoder.npy');
    console.log(`${c.folder} control whole-input encoder against the context-only golden: ${whole.summary}`);
    expect(whole.pass).toBe(false);
  });

  it.each(['targets_permuted_target_pos.npy', 'targets_no_target_pos.npy'])('negative control %s fails', async (control) => {
    const v = verdict(c, 'f32', await predictFromTokens(paths.get(`${c.folder}:f32`)!, c), control);
    console.log(`${c.folder} control ${control}: ${v.summary}`);
    expect(v.pass).toBe(false);
  });
});

describe('vjepa_pred', () => {
  const c = CASES[1]!;

  it('negative control: mask token 0 instead of the default 1 fails', async () => {
    const v = verdict(c, 'f32', await predictFromTokens(paths.get(`${c.folder}:f32`)!, c, 0), 'targets.npy');
    console.log(`vjepa_pred control mask_index 0: ${v.summary}`);
    expect(v.pass).toBe(false);
  });

  it('negative control: the default entry (target_encoder) as the context encoder fails, and the note says so', async () => {
    const path = join(OUT, 'vjepa_pred-target.gguf');
    const nHead = manifestOf(c.folder).hparams.n_head as number;
    const summary = await convertCheckpoint(join(REFERENCE, c.folder, c.ckpt), path, { nHead });
    expect(summary.sourceEntry).toBe('target_encoder');
    expect(summary.notes.join(' ')).toMatch(/--entry encoder/);
    const v = verdict(c, 'f32', await predictFromInput(path, c), 'targets_from_input.npy');
    console.log(`vjepa_pred control target_encoder entry: ${v.summary}`);
    expect(v.pass).toBe(false);
  });

  it('a context-only encoding refuses ids off the input and batches of more than one item', async () => {
    const m = await model(paths.get(`${c.folder}:f32`)!);
    const enc = m.createContext();
    try {
      const input = npy(c.folder, 'input.npy');
      await expect(enc.encode(input, { keep: [0, 18] })).rejects.toMatchObject({ code: 'OFF_GRID' });
      const two = { data: new Float32Array(input.data.length * 2), shape: [2, ...input.shape.slice(1)] };
      await expect(enc.encode(two, { keep: [0] })).rejects.toThrow(/takes one item, not 2/);
    } finally {
      enc.dispose();
    }
  });

  it('takes fewer frames (the leading table rows) and refuses more than the table holds', async () => {
    const m = await model(paths.get(`${c.folder}:f32`)!);
    const dim = m.spec.enc.embedDim;
    const plane = m.spec.enc.gridSize ** 2;
    const p = m.spec.pred!;
    if (p.kind !== 'masked') throw new Error('not a masked predictor');
    const ctx = m.createPredictorContext();
    try {
      const one = await ctx.predict({ tokens: new Float32Array(plane * dim).fill(0.1), dim, contextIds: [0, 1], targetIds: [plane - 1] });
      expect(one.targets.length).toBe(dim);
      const tooMany = new Float32Array((p.posRows + plane) * dim);
      await expect(ctx.predict({ tokens: tooMany, dim, contextIds: [0], targetIds: [1] })).rejects.toThrow(/more than the 18 positions/);
    } finally {
      ctx.dispose();
    }
  });
});
