// DINOv3 in both of its layouts (HF dinov3_vit folders, the dinov3 repository's torch.hub .pth): detected,
// converted with the architecture read from the tensors, and judged against the float64 goldens of
// scripts/reference/fam_dinov3.py on a square and a non-square patch grid. Their wrong models must fail the
// same judge: RoPE on the prefix tokens, both axes normalised by the longer side, the key bias unmasked,
// the local crops' CLS norm used at evaluation.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelSpec, tensorNames } from '@jepa/gguf';
import { compareTokens, cosine, judge, Model, policyRow, type Verdict } from '@jepa/graph';
import { FIXTURE_TABLE, manifestOf, NEGATIVE_CONTROLS, npy, type GoldenCase, type ReferenceFixture } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCheckpoint, detectFamily, type ConvertSummary } from '../src/index.js';
import { expectConvertError } from './fixtures.js';

const OUT = mkdtempSync(join(tmpdir(), 'jepa-dinov3-'));
const DINOV3 = FIXTURE_TABLE.filter((f) => f.folder.startsWith('dinov3'));
const summaries = new Map<string, ConvertSummary>();
const models = new Map<string, Model>();

beforeAll(async () => {
  for (const f of DINOV3) summaries.set(f.folder, await convertCheckpoint(f.src, join(OUT, `${f.folder}.gguf`), f.options));
});

afterAll(async () => {
  for (const m of models.values()) await m.dispose();
});

async function modelOf(f: ReferenceFixture): Promise<Model> {
  let m = models.get(f.folder);
  if (!m) {
    m = await Model.load(join(OUT, `${f.folder}.gguf`), { threads: 2 });
    models.set(f.folder, m);
  }
  return m;
}

async function verdict(f: ReferenceFixture, c: GoldenCase, golden: string): Promise<Verdict> {
  const ctx = (await modelOf(f)).createContext();
  try {
    const out = await ctx.encode(npy(f.folder, c.input));
    const pooled = cosine(out.pool('cls'), npy(f.folder, c.pooled).data);
    const v = judge(policyRow('cpu', 'image', 'f32'), compareTokens(out.tokens, npy(f.folder, golden).data, out.dim), pooled);
    console.log(`${f.folder} ${c.input} vs ${golden}: ${v.summary}`);
    return v;
  } finally {
    ctx.dispose();
  }
}

describe('DINOv3', () => {
  it('has four fixtures: HF MLP and gated, Meta MLP with a masked key bias, Meta SwiGLU without qkv bias', () => {
    expect(DINOV3.map((f) => f.folder)).toEqual(['dinov3_hf', 'dinov3_hf_gated', 'dinov3_meta', 'dinov3_meta_swiglu']);
    expect(DINOV3.every((f) => f.cases.length === 2)).toBe(true);
  });

  it.each(DINOV3)('$folder is detected by its layout, also under --family dinov3', async (f) => {
    const mapping = f.folder.startsWith('dinov3_meta') ? 'meta-dinov3' : 'hf-dinov3';
    expect(await detectFamily(f.src)).toMatchObject({ family: 'dinov3', mapping });
    expect(await detectFamily(f.src, 'dinov3')).toMatchObject({ mapping });
  });

  it.each(DINOV3)('$folder converts with the architecture of its tensors', (f) => {
    const hp = manifestOf(f.folder).hparams;
    const s = summaries.get(f.folder)!;
    const spec = loadModelSpec(s.out);
    const e = spec.enc;
    expect([spec.family, e.embedDim, e.nLayer, e.nHead, e.ffnDim, e.patchSize, e.nReg]).toEqual([
      'dinov3',
      hp.embed_dim,
      hp.n_layer,
      hp.n_head,
      hp.ffn_dim,
      hp.patch,
      hp.n_register,
    ]);
    expect([e.pos, e.rope, e.nCls, e.layerScale, e.lnEps]).toEqual([
      'rope2d',
      { layout: 'interleaved', theta: 100, interpolate: false, refGrid: null },
      1,
      true,
      Math.fround(1e-5),
    ]);
    expect(e.ffnKind).toBe(String(hp.ffn).startsWith('mlp') ? 'mlp' : 'swiglu');
    expect(spec.tensors.has(tensorNames.encPosEmbed)).toBe(false);
    expect(spec.tensors.has(`${tensorNames.encBlock(0)}.attn.qkv.bias`)).toBe(f.folder !== 'dinov3_meta_swiglu');
    expect(spec.license).toBe('LicenseRef-dinov3-license');
    expect(spec.pre).toMatchObject({ resize: { mode: 'squash' }, resample: 'bilinear', mean: [0.485, 0.456, 0.406].map(Math.fround) });
  });

  it('reads the square resize of the HF processor, and the hub default of 224 for a Meta file', () => {
    expect(loadModelSpec(summaries.get('dinov3_hf')!.out).pre).toMatchObject({ resize: { mode: 'squash', size: 64 }, crop: 64 });
    expect(loadModelSpec(summaries.get('dinov3_meta')!.out).pre).toMatchObject({ resize: { mode: 'squash', size: 224 }, crop: 224 });
  });

  it('leaves out what evaluation never reads: the mask token, the local CLS norm; the periods give the head width', () => {
    expect(summaries.get('dinov3_hf')!.ignored).toEqual(['embeddings.mask_token']);
    expect(summaries.get('dinov3_meta')!.ignored).toEqual(['mask_token', 'local_cls_norm.weight', 'local_cls_norm.bias']);
    expect(summaries.get('dinov3_meta')!.notes).toContain('heads of width 16 (4 × 4 rope periods): 2 heads');
  });

  for (const f of DINOV3) {
    it.each(f.cases)(`${f.folder} f32 $input matches the golden`, async (c) => {
      expect((await verdict(f, c, c.lastHiddenState)).failures).toEqual([]);
    });
  }

  it.each(NEGATIVE_CONTROLS.filter((n) => n.folder.startsWith('dinov3')))('$folder $control fails the same judge', async (n) => {
    const f = DINOV3.find((x) => x.folder === n.folder)!;
    expect((await verdict(f, n.case, n.control)).pass).toBe(false);
  });

  it('pools cls+mean as the CLS beside the mean of the patch tokens, never the registers', async () => {
    const f = DINOV3[0]!;
    const ctx = (await modelOf(f)).createContext();
    try {
      const c = f.cases[1]!;
      const out = await ctx.encode(npy(f.folder, c.input));
      const golden = npy(f.folder, c.lastHiddenState);
      const [, n, d] = golden.shape as [number, number, number];
      const mean = new Float64Array(d);
      for (let t = 5; t < n; t++) for (let k = 0; k < d; k++) mean[k] += golden.data[t * d + k]! / (n - 5);
      const both = out.pool('cls+mean');
      expect(both.length).toBe(2 * d);
      expect(cosine(both.subarray(0, d), golden.data.subarray(0, d))).toBeGreaterThan(0.99999);
      expect(cosine(both.subarray(d), Float32Array.from(mean))).toBeGreaterThan(0.99999);
      // negative control: a mean that counts the registers is another vector
      const withRegisters = new Float64Array(d);
      for (let t = 1; t < n; t++) for (let k = 0; k < d; k++) withRegisters[k] += golden.data[t * d + k]! / (n - 1);
      expect(cosine(both.subarray(d), Float32Array.from(withRegisters))).toBeLessThan(0.999);
    } finally {
      ctx.dispose();
    }
  });

  it('refuses a file whose name claims a released architecture its tensors do not have, in one line', async () => {
    const f = DINOV3.find((x) => x.folder === 'dinov3_meta')!;
    const renamed = join(mkdtempSync(join(tmpdir(), 'jepa-dinov3-name-')), 'dinov3_vits16_pretrain_lvd1689m-08c60483.pth');
    copyFileSync(f.src, renamed);
    const e = await expectConvertError(
      convertCheckpoint(renamed, join(OUT, 'renamed.gguf')),
      'CONVERT_SHAPE_MISMATCH',
      /the name says dinov3_vits16 \(ViT-S\/16: width 384, 12 blocks, 6 heads, MLP\), but the tensors are width 32, 2 blocks, 2 heads, MLP/,
    );
    expect(e.message).not.toContain('\n');
  });

  it('takes the satellite statistics for a SAT-493M file', async () => {
    const f = DINOV3.find((x) => x.folder === 'dinov3_meta')!;
    const sat = join(mkdtempSync(join(tmpdir(), 'jepa-dinov3-sat-')), 'dinov3_vittiny16_pretrain_sat493m.pth');
    copyFileSync(f.src, sat);
    const s = await convertCheckpoint(sat, join(OUT, 'sat.gguf'));
    expect(loadModelSpec(s.out).pre.mean).toEqual([0.43, 0.411, 0.296].map(Math.fround));
    expect(s.notes).toContain('SAT-493M weights: the satellite mean and std');
  });

  it('refuses an --n-head the rope periods contradict', async () => {
    const f = DINOV3.find((x) => x.folder === 'dinov3_meta')!;
    await expectConvertError(
      convertCheckpoint(f.src, join(OUT, 'heads.gguf'), { nHead: 4 }),
      'CONVERT_BAD_OPTION',
      /--n-head 4, but 'rope_embed\.periods' gives heads of width 16: 2 heads/,
    );
  });
});
