// The V-JEPA 2-AC reference fixtures (fixtures/reference/vjepa2_ac/<case>): the Meta-layout .pt, its
// float64 goldens, and its conversion once per test file by the converter the test passes in (this
// package does not depend on @jepa/convert, whose own tests use it).
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readNpy } from '@jepa/preprocess';
import { REFERENCE } from './paths.js';

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

/** What the AC case hands the converter: @jepa/convert's convertCheckpoint fits. */
export type AcConverter<Dtype extends string | undefined> = (
  src: string,
  dst: string,
  options: { dtype: Dtype; imgSize: number; nHead: number; predNHead: number; acExtrinsics: boolean },
) => Promise<unknown>;

export function acCase<Dtype extends string | undefined>(name: AcCase, convertCheckpoint: AcConverter<Dtype>) {
  const dir = join(REFERENCE, 'vjepa2_ac', name);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as AcManifest;
  const npy = (file: string) => readNpy(join(dir, `${file}.npy`));
  const f32 = (file: string) => npy(file).data as Float32Array;
  const has = (file: string) => existsSync(join(dir, `${file}.npy`));
  const out = mkdtempSync(join(tmpdir(), `jepa-ac-${name}-`));
  /** The converted bundle: encoder from the `encoder` entry plus the AC predictor. */
  const convert = async (dtype: Dtype = 'f32' as Dtype) => {
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
