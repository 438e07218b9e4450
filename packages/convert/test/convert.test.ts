// convertCheckpoint's own behaviour: detection, metadata read from the checkpoint, skip rules, and the
// typed refusals (bad files, configs that contradict the tensors, tensors nothing maps).
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { convertCheckpoint, detectFamily, openCheckpoint } from '../src/index.js';
import { expectConvertError, fixturePath, safetensorsBytes, tempDir } from './fixtures.js';
import { FIXTURE_TABLE, manifestOf, REFERENCE } from '@jepa/testing';

const DETECTED: Record<string, [string, string]> = {
  hfvit: ['hfvit', 'hf-vit'],
  hfvit_reg: ['hfvit', 'hf-vit'],
  hfvit_lejepa: ['hfvit', 'lejepa'],
  hfvit_swiglu: ['hfvit', 'hf-vit'],
  hfvit_nobias: ['hfvit', 'hf-vit'],
  hfvit_hub: ['hfvit', 'dinov2-hub'],
  hfvit_hub_reg: ['hfvit', 'dinov2-hub'],
  hfvit_hub_g: ['hfvit', 'dinov2-hub'],
  ijepa: ['ijepa', 'hf-ijepa'],
  vjepa: ['vjepa', 'meta-vjepa'],
  vjepa2: ['vjepa2', 'hf-vjepa2'],
  vjepa2_1: ['vjepa2_1', 'meta-vjepa2_1'],
  levjepa: ['levjepa', 'levjepa'],
  lewm: ['hfvit', 'lewm'],
  videomae: ['videomae', 'hf-videomae'],
  vivit: ['vivit', 'hf-vivit'],
  dinov3_hf: ['dinov3', 'hf-dinov3'],
  dinov3_hf_gated: ['dinov3', 'hf-dinov3'],
  dinov3_meta: ['dinov3', 'meta-dinov3'],
  dinov3_meta_swiglu: ['dinov3', 'meta-dinov3'],
};

/** A copy of a reference folder in a temp dir, with config.json edited. */
function editedFolder(folder: string, edit: (config: Record<string, unknown>) => void): string {
  const dir = join(tempDir(), folder);
  cpSync(join(REFERENCE, folder), dir, { recursive: true });
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  edit(config);
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

/** The hfvit folder with one more tensor in model.safetensors. */
async function folderWithExtraTensor(name: string): Promise<string> {
  const dir = editedFolder('hfvit', () => undefined);
  const ck = await openCheckpoint(join(REFERENCE, 'hfvit', 'model.safetensors'));
  const header: Record<string, unknown> = {};
  const parts: Uint8Array[] = [];
  let at = 0;
  const add = (key: string, shape: readonly number[], bytes: Uint8Array) => {
    header[key] = { dtype: 'F32', shape, data_offsets: [at, at + bytes.byteLength] };
    parts.push(bytes);
    at += bytes.byteLength;
  };
  for (const [key, ref] of ck.tensors) {
    const data = await ref.readAsFloat32();
    add(key, ref.shape, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  await ck.close();
  add(name, [4], new Uint8Array(16));
  const data = new Uint8Array(at);
  let off = 0;
  for (const p of parts) {
    data.set(p, off);
    off += p.byteLength;
  }
  writeFileSync(join(dir, 'model.safetensors'), safetensorsBytes(header, data));
  return dir;
}

describe('detection', () => {
  it.each(FIXTURE_TABLE)('$folder', async (f) => {
    const d = await detectFamily(f.src);
    expect([d.family, d.mapping]).toEqual(DETECTED[f.folder]);
  });

  it('--family narrows a family name by container and accepts mapping ids', async () => {
    expect((await detectFamily(join(REFERENCE, 'vjepa2'), 'vjepa2')).mapping).toBe('hf-vjepa2');
    expect((await detectFamily(join(REFERENCE, 'vjepa', 'vjepa_fixture.pth.tar'), 'meta-vjepa2')).mapping).toBe('meta-vjepa2');
    await expectConvertError(detectFamily(join(REFERENCE, 'hfvit'), 'dinov9'), 'CONVERT_BAD_OPTION', /dinov9/);
  });
});

describe('metadata from the checkpoint', () => {
  it('reads the hparams of every fixture as its manifest records them', async () => {
    const out = tempDir();
    for (const f of FIXTURE_TABLE) {
      const s = await convertCheckpoint(f.src, join(out, `${f.folder}.gguf`), f.options);
      const h = manifestOf(f.folder).hparams;
      const e = s.hparams.enc;
      expect([f.folder, e.embedDim, e.nLayer, e.nHead, e.ffnDim]).toEqual([f.folder, h.embed_dim, h.n_layer, h.n_head, h.ffn_dim]);
      expect(e.lnEps).toBe(Math.fround(h.eps as number));
    }
  });

  it('finds the V-JEPA v1 grid from its stored sincos table and refuses a contradicting override', async () => {
    const src = join(REFERENCE, 'vjepa', 'vjepa_fixture.pth.tar');
    const s = await convertCheckpoint(src, join(tempDir(), 'v.gguf'), { nHead: 2 });
    expect([s.hparams.enc.imgSize, s.hparams.enc.nFrames, s.sourceEntry]).toEqual([32, 4, 'target_encoder']);
    await expectConvertError(
      convertCheckpoint(src, join(tempDir(), 'v.gguf'), { nHead: 2, imgSize: 16 }),
      'CONVERT_SHAPE_MISMATCH',
      /8 frames|4 frames at 32 px/,
    );
  });

  it('takes the recipe and layer-scale / registers from the HF folder', async () => {
    const s = await convertCheckpoint(join(REFERENCE, 'hfvit_reg'), join(tempDir(), 'r.gguf'));
    expect([s.hparams.enc.nReg, s.hparams.enc.layerScale]).toEqual([4, true]);
    expect(s.hparams.pre.resize).toEqual({ mode: 'short', size: 48 });
    expect([s.hparams.pre.crop, s.hparams.pre.resample, s.hparams.pre.cropRounding]).toEqual([42, 'bicubic', 'floor']);
    const ij = await convertCheckpoint(join(REFERENCE, 'ijepa'), join(tempDir(), 'i.gguf'));
    expect([ij.hparams.pre.resize, ij.hparams.pre.mean]).toEqual([{ mode: 'squash', size: 42 }, [0.5, 0.5, 0.5]]);
  });

  it('refuses VideoMAEForPreTraining (its pixel decoder) in one line', async () => {
    const dir = tempDir();
    const w = 'encoder_to_decoder.weight';
    writeFileSync(
      join(dir, 'model.safetensors'),
      safetensorsBytes({ [w]: { dtype: 'F32', shape: [1, 1], data_offsets: [0, 4] } }, new Uint8Array(4)),
    );
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'videomae', architectures: ['VideoMAEForPreTraining'] }));
    await expectConvertError(
      convertCheckpoint(dir, join(dir, 'p.gguf')),
      'CONVERT_UNKNOWN_FAMILY',
      /^VideoMAEForPreTraining: the pixel-reconstruction decoder is not in schema v1/,
    );
  });

  it('keeps only the inference norm of a V-JEPA 2.1 depth without a hierarchy table, from ema_encoder', async () => {
    const s = await convertCheckpoint(join(REFERENCE, 'vjepa2_1', 'vjepa2_1_fixture.pt'), join(tempDir(), 'v.gguf'), { nHead: 1 });
    expect([s.sourceEntry, s.hparams.enc.hierLayers, s.hparams.enc.rope?.refGrid]).toEqual(['ema_encoder', [1], 16]);
    expect(s.notes.join(' ')).toMatch(/norms_block\.3/);
  });

  it('writes the bf16 tier with general.file_type 32', async () => {
    const out = join(tempDir(), 'b.gguf');
    await convertCheckpoint(join(REFERENCE, 'hfvit'), out, { dtype: 'bf16' });
    const spec = loadModelSpec(out);
    expect(spec.fileType).toBe(32);
    expect(spec.tensors.get('enc.blk.0.attn.qkv.weight')!.type).toBe(30);
  });

  it('reports progress for every tensor', async () => {
    const seen: number[] = [];
    const s = await convertCheckpoint(join(REFERENCE, 'ijepa'), join(tempDir(), 'p.gguf'), { onProgress: (p) => seen.push(p.index) });
    expect(seen).toEqual(Array.from({ length: s.tensors }, (_, i) => i + 1));
  });
});

describe('skipped and unmapped tensors', () => {
  it('skips the tensors the reference never uses, by rule, and lists them', async () => {
    const hf = await convertCheckpoint(join(REFERENCE, 'hfvit'), join(tempDir(), 'a.gguf'));
    expect(hf.ignored).toEqual(['embeddings.mask_token']);
    const le = await convertCheckpoint(join(REFERENCE, 'hfvit_lejepa'), join(tempDir(), 'b.gguf'));
    expect(le.ignored.sort()).toEqual([
      'cva_module_proj.last_layer.weight',
      'cva_module_proj.mlp.0.bias',
      'cva_module_proj.mlp.0.weight',
      'mask_token',
    ]);
    const wm = await convertCheckpoint(join(REFERENCE, 'lewm'), join(tempDir(), 'c.gguf'));
    expect(wm.ignored.every((n) => n.startsWith('projector.'))).toBe(true);
  });

  it('refuses a tensor no rule maps, naming it, unless allowUnmapped', async () => {
    const dir = await folderWithExtraTensor('encoder.layer.0.attention.extra.weight');
    const out = join(tempDir(), 'x.gguf');
    await expectConvertError(convertCheckpoint(dir, out), 'CONVERT_UNMAPPED_TENSORS', /encoder\.layer\.0\.attention\.extra\.weight/);
    expect(existsSync(out)).toBe(false);
    const s = await convertCheckpoint(dir, out, { allowUnmapped: true });
    expect(s.skippedUnmapped).toEqual(['encoder.layer.0.attention.extra.weight']);
  });
});

describe('refusals', () => {
  it('a config that contradicts the tensors names both', async () => {
    const wide = editedFolder('hfvit', (c) => (c.hidden_size = 64));
    await expectConvertError(
      convertCheckpoint(wide, join(tempDir(), 'a.gguf')),
      'CONVERT_SHAPE_MISMATCH',
      /'hidden_size' = 64.*embeddings\.patch_embeddings\.projection\.weight.*48/,
    );
    const deep = editedFolder('ijepa', (c) => (c.num_hidden_layers = 3));
    await expectConvertError(convertCheckpoint(deep, join(tempDir(), 'b.gguf')), 'CONVERT_SHAPE_MISMATCH', /'num_hidden_layers' = 3.*implies 2/);
    const heads = editedFolder('vjepa2', (c) => (c.num_attention_heads = 3));
    await expectConvertError(convertCheckpoint(heads, join(tempDir(), 'c.gguf')), 'CONVERT_BAD_CONFIG', /n_head|divisible/);
  });

  it('a Meta pickle of an unreleased width needs --n-head', async () => {
    await expectConvertError(
      convertCheckpoint(join(REFERENCE, 'vjepa2_1', 'vjepa2_1_fixture.pt'), join(tempDir(), 'a.gguf')),
      'CONVERT_BAD_CONFIG',
      /--n-head/,
    );
  });

  it('a truncated safetensors file', async () => {
    const dir = editedFolder('hfvit', () => undefined);
    const bytes = readFileSync(join(dir, 'model.safetensors'));
    writeFileSync(join(dir, 'model.safetensors'), bytes.subarray(0, bytes.byteLength - 1000));
    const out = join(tempDir(), 'a.gguf');
    await expectConvertError(convertCheckpoint(dir, out), 'SAFETENSORS_OFFSETS_OUT_OF_DATA');
    expect(existsSync(out)).toBe(false);
  });

  it('a safetensors header that lies about its offsets', async () => {
    const dir = editedFolder('hfvit', () => undefined);
    copyFileSync(fixturePath('safetensors', 'offsets-beyond-data.safetensors'), join(dir, 'model.safetensors'));
    await expectConvertError(convertCheckpoint(dir, join(tempDir(), 'a.gguf')), 'SAFETENSORS_OFFSETS_OUT_OF_DATA', /\[10000, 10003\]/);
  });

  it('a torch file missing a storage', async () => {
    const out = tempDir();
    await expectConvertError(
      convertCheckpoint(fixturePath('torch', 'missing-storage.pt'), join(out, 'a.gguf'), { family: 'vjepa2' }),
      'TORCH_MISSING_STORAGE',
    );
    expect(readdirSync(out)).toEqual([]);
  });
});
