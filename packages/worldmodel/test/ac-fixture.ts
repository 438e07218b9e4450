// The V-JEPA 2-AC reference fixtures (fixtures/reference/vjepa2_ac/<case>): the Meta-layout .pt
// converted once per test file with @jepa/convert, and the float64 goldens beside it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { convertCheckpoint, type WeightDtype } from '@jepa/convert';
import { readNpy } from '@jepa/preprocess';

export const AC_CASES = ['h32', 'h64'] as const;
export type AcCase = (typeof AC_CASES)[number];

export interface AcCemSettingsJson {
  rollout: number;
  samples: number;
  topk: number;
  cem_steps: number;
  momentum_mean: number;
  momentum_std: number;
  momentum_mean_gripper: number;
  momentum_std_gripper: number;
  maxnorm: number;
  axis: Record<string, number>;
  close_gripper: number | null;
}

export interface AcManifest {
  hparams: { img_size: number; enc_n_head: number; pred_n_head: number; use_extrinsics: boolean; steps: number; grid_size: number };
  cem: Record<'cem' | 'cem2', { settings: AcCemSettingsJson } | undefined>;
}

export function acCase(name: AcCase) {
  const dir = resolve(import.meta.dirname, '../../../fixtures/reference/vjepa2_ac', name);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as AcManifest;
  const npy = (file: string) => readNpy(join(dir, `${file}.npy`));
  const f32 = (file: string) => npy(file).data as Float32Array;
  const has = (file: string) => {
    try {
      readFileSync(join(dir, `${file}.npy`), { flag: 'r' });
      return true;
    } catch {
      return false;
    }
  };
  const out = mkdtempSync(join(tmpdir(), `jepa-ac-${name}-`));
  /** The converted bundle: encoder from the `encoder` entry plus the AC predictor. */
  const convert = async (dtype: WeightDtype = 'f32') => {
    const path = join(out, `${dtype}.gguf`);
    const h = manifest.hparams;
    await convertCheckpoint(join(dir, 'vjepa2-ac.pt'), path, {
      dtype,
      imgSize: h.img_size,
      nHead: h.enc_n_head,
      predNHead: h.pred_n_head,
      acExtrinsics: h.use_extrinsics,
    });
    return path;
  };
  return { dir, manifest, npy, f32, has, convert };
}
