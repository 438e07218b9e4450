// general.license: each reference fixture converted carries its family's release licence; config.json's
// own `license` wins over it; --license wins over both and is checked; a layout whose licence is not
// certain (a plain HF ViTModel folder) writes none.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { FIXTURE_TABLE, REFERENCE } from '@jepa/testing';
import { describe, expect, it } from 'vitest';
import { convertCheckpoint, type ConvertOptions } from '../src/index.js';
import { expectConvertError, tempDir } from './fixtures.js';
import { tensorsOf, writeSafetensors, type RawTensor } from './synthetic-checkpoint.js';

const EXPECTED: Record<string, string> = {
  hfvit: 'Apache-2.0', // HF Dinov2Model
  hfvit_reg: 'Apache-2.0', // Dinov2WithRegistersModel
  hfvit_hub: 'Apache-2.0', // the dinov2 repository's torch.hub .pth
  hfvit_lejepa: 'Apache-2.0', // LeJEPA
  ijepa: 'CC-BY-NC-4.0', // HF I-JEPA
  levjepa: 'CC-BY-NC-4.0',
  vjepa: 'CC-BY-NC-4.0', // Meta V-JEPA .pth.tar
  vjepa2: 'MIT', // HF V-JEPA 2
  vjepa2_1: 'MIT', // Meta V-JEPA 2.1 .pt
  lewm: 'MIT',
  dinov3_hf: 'LicenseRef-dinov3-license', // HF DINOv3ViTModel
  dinov3_meta: 'LicenseRef-dinov3-license', // the dinov3 repository's torch.hub .pth
};

async function licenseOf(src: string, options: ConvertOptions = {}): Promise<string | null> {
  const out = join(tempDir(), 'm.gguf');
  const summary = await convertCheckpoint(src, out, options);
  const license = loadModelSpec(out).license;
  expect(summary.hparams.license).toBe(license);
  return license;
}

/** The hfvit fixture renamed to an HF ViTModel folder (layernorm_before / intermediate.dense, no layer scale). */
async function plainVitFolder(config: Record<string, unknown> = {}): Promise<string> {
  const dir = join(tempDir(), 'vit');
  const renamed = new Map<string, RawTensor>();
  for (const [name, t] of await tensorsOf(join(REFERENCE, 'hfvit', 'model.safetensors'))) {
    if (name.includes('layer_scale')) continue;
    const vit = name
      .replace('.norm1.', '.layernorm_before.')
      .replace('.norm2.', '.layernorm_after.')
      .replace('.mlp.fc1.', '.intermediate.dense.')
      .replace('.mlp.fc2.', '.output.dense.');
    renamed.set(vit, t);
  }
  cpSync(join(REFERENCE, 'hfvit'), dir, { recursive: true });
  writeSafetensors(join(dir, 'model.safetensors'), renamed);
  const base = JSON.parse(readFileSync(join(REFERENCE, 'hfvit', 'config.json'), 'utf8')) as Record<string, unknown>;
  const { mlp_ratio: _r, layerscale_value: _l, use_swiglu_ffn: _s, ...rest } = base;
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...rest, model_type: 'vit', intermediate_size: 192, ...config }));
  return dir;
}

describe('general.license', () => {
  it.each(Object.entries(EXPECTED))('%s carries %s', async (folder, expected) => {
    const f = FIXTURE_TABLE.find((x) => x.folder === folder);
    expect(f, `${folder} is a reference fixture`).toBeDefined();
    expect(await licenseOf(f!.src, f!.options)).toBe(expected);
  });

  it('Meta I-JEPA and V-JEPA 2-AC pickles carry theirs too', async () => {
    expect(await licenseOf(join(REFERENCE, 'ijepa_pred', 'ijepa_pred_fixture.pth.tar'), { nHead: 2 })).toBe('CC-BY-NC-4.0');
    const ac = join(__dirname, 'data', 'meta-vjepa2-ac.pt');
    expect(await licenseOf(ac, { nHead: 2, predNHead: 2 })).toBe('MIT');
  });

  it('a plain HF ViTModel folder writes none (negative control); its config.json license is written', async () => {
    expect(await licenseOf(await plainVitFolder())).toBeNull();
    expect(await licenseOf(await plainVitFolder({ license: 'CC0-1.0' }))).toBe('CC0-1.0');
  });

  it("config.json's license wins over the family's; --license wins over both", async () => {
    const dir = join(tempDir(), 'hfvit');
    cpSync(join(REFERENCE, 'hfvit'), dir, { recursive: true });
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, license: 'other' }));
    expect(await licenseOf(dir)).toBe('other');
    expect(await licenseOf(dir, { license: 'LicenseRef-mine' })).toBe('LicenseRef-mine');
    expect(await licenseOf(join(REFERENCE, 'hfvit'), { license: 'MIT' })).toBe('MIT');
  });

  it('--license must be one non-empty line of at most 1024 characters', async () => {
    const src = join(REFERENCE, 'hfvit');
    const out = join(tempDir(), 'x.gguf');
    await expectConvertError(convertCheckpoint(src, out, { license: ' ' }), 'CONVERT_BAD_OPTION', /^--license is empty/);
    await expectConvertError(convertCheckpoint(src, out, { license: 'MIT\nrm -rf' }), 'CONVERT_BAD_OPTION', /^--license must be a single line$/);
    await expectConvertError(convertCheckpoint(src, out, { license: 'x'.repeat(1025) }), 'CONVERT_BAD_OPTION', /1025 characters; at most 1024/);
    expect(await licenseOf(src, { license: 'x'.repeat(1024) })).toHaveLength(1024);
  });
});
