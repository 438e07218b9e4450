// The dinov2 repository's torch.hub files (a bare state dict in its own names): detected from the keys,
// written in the HF DINOv2 layout with the hub's position resizing (offset 0.1 without registers), and
// judged against the float64 goldens of scripts/reference/fam_dinov2_hub.py, whose wrong models must fail:
// layer scale left out, and the table resized to the grid as HF does instead of by the offset scale.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelSpec, tensorNames } from '@jepa/gguf';
import { compareTokens, cosine, judge, Model, policyRow, type Verdict } from '@jepa/graph';
import { FIXTURE_TABLE, manifestOf, NEGATIVE_CONTROLS, npy, type GoldenCase, type ReferenceFixture } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCheckpoint, detectFamily, type ConvertSummary } from '../src/index.js';
import { expectConvertError } from './fixtures.js';

const OUT = mkdtempSync(join(tmpdir(), 'jepa-dinov2-hub-'));
const HUB = FIXTURE_TABLE.filter((f) => f.folder.startsWith('hfvit_hub'));
const summaries = new Map<string, ConvertSummary>();
const models: Model[] = [];

beforeAll(async () => {
  for (const f of HUB) summaries.set(f.folder, await convertCheckpoint(f.src, join(OUT, `${f.folder}.gguf`), f.options));
});

afterAll(async () => {
  for (const m of models) await m.dispose();
});

async function verdict(f: ReferenceFixture, c: GoldenCase, golden: string): Promise<Verdict> {
  const model = await Model.load(join(OUT, `${f.folder}.gguf`), { threads: 2 });
  models.push(model);
  const ctx = model.createContext();
  try {
    const out = await ctx.encode(npy(f.folder, c.input));
    const expected = npy(f.folder, golden).data;
    const pooled = cosine(out.pool('cls'), npy(f.folder, c.pooled).data);
    const v = judge(policyRow('cpu', 'image', 'f32'), compareTokens(out.tokens, expected, out.dim), pooled);
    console.log(`${f.folder} ${c.input} vs ${golden}: ${v.summary}`);
    return v;
  } finally {
    ctx.dispose();
  }
}

describe('dinov2 torch.hub files', () => {
  it('are three fixtures: without registers, with registers, SwiGLU', () => {
    expect(HUB.map((f) => f.folder)).toEqual(['hfvit_hub', 'hfvit_hub_reg', 'hfvit_hub_g']);
  });

  it.each(HUB)('$folder is detected as the hub layout, also under --family hfvit', async (f) => {
    expect(await detectFamily(f.src)).toMatchObject({ family: 'hfvit', mapping: 'dinov2-hub' });
    expect(await detectFamily(f.src, 'hfvit')).toMatchObject({ mapping: 'dinov2-hub' });
  });

  it.each(HUB)('$folder converts to the hfvit layout with the hub recipe and resizing', (f) => {
    const hp = manifestOf(f.folder).hparams;
    const s = summaries.get(f.folder)!;
    expect([s.family, s.mapping, s.ignored]).toEqual(['hfvit', 'dinov2-hub', ['mask_token']]);
    const spec = loadModelSpec(s.out);
    const e = spec.enc;
    expect([e.embedDim, e.nLayer, e.nHead, e.ffnDim, e.patchSize]).toEqual([hp.embed_dim, hp.n_layer, hp.n_head, hp.ffn_dim, hp.patch]);
    expect([e.imgSize, e.nReg, e.layerScale, e.ffnKind, e.act]).toEqual([
      (hp.table_grid as number) * (hp.patch as number),
      hp.n_register,
      true,
      hp.swiglu ? 'swiglu' : 'mlp',
      hp.swiglu ? 'silu' : 'gelu',
    ]);
    expect(e.posInterpOffset).toBe(Math.fround(hp.interpolate_offset as number));
    expect(e.lnEps).toBe(Math.fround(1e-6));
    expect(spec.tensors.has(tensorNames.encRegTokens)).toBe((hp.n_register as number) > 0);
    expect(spec.license).toBe('Apache-2.0');
    expect(spec.pre).toMatchObject({ resize: { mode: 'short', size: 256 }, crop: 224, resample: 'bicubic', cropRounding: 'round' });
  });

  for (const f of HUB) {
    it.each(f.cases)(`${f.folder} f32 $input matches the golden`, async (c) => {
      expect((await verdict(f, c, c.lastHiddenState)).failures).toEqual([]);
    });
  }

  it.each(NEGATIVE_CONTROLS.filter((n) => n.folder.startsWith('hfvit_hub')))('$folder $control fails the same judge', async (n) => {
    const f = HUB.find((x) => x.folder === n.folder)!;
    expect((await verdict(f, n.case, n.control)).pass).toBe(false);
  });

  it('refuses a width no released backbone has without --n-head, in one line', async () => {
    const f = HUB[0]!;
    const e = await expectConvertError(
      convertCheckpoint(f.src, join(OUT, 'no-heads.gguf')),
      'CONVERT_BAD_CONFIG',
      /dinov2 torch\.hub file records no head count, and width 48 is none of the released 384, 768, 1024, 1536; give it \(--n-head\)/,
    );
    expect(e.message).not.toContain('\n');
  });
});
