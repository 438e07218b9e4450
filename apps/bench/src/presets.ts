// Real-size model shapes with random weights, forged once into tmp/bench-models/ and reused.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { GgmlType, forgeModel, type Activation, type Family, type ModelHparams } from '@jepa/gguf';
import { quantizeMain } from './bins.js';

export interface Preset {
  family: Family;
  title: string;
  dim: number;
  layers: number;
  heads: number;
  ffn: number;
  patch: number;
  tubelet: number;
  size: number;
  frames: number;
  /** The MLP activation where it is not the forge's exact GELU (ViViT's gelu_fast). */
  act?: Activation;
}

export const PRESETS: Record<string, Preset> = {
  'vit-b16': { family: 'hfvit', title: 'ViT-B/16 (hfvit)', dim: 768, layers: 12, heads: 12, ffn: 3072, patch: 16, tubelet: 1, size: 224, frames: 1 },
  'vit-h14': { family: 'ijepa', title: 'ViT-H/14 (ijepa)', dim: 1280, layers: 32, heads: 16, ffn: 5120, patch: 14, tubelet: 1, size: 224, frames: 1 },
  // heads of width 88: values that are not whole 16-float vectors
  'vit-g16': { family: 'ijepa', title: 'ViT-g/16 (ijepa)', dim: 1408, layers: 40, heads: 16, ffn: 6144, patch: 16, tubelet: 1, size: 224, frames: 1 },
  'vit-l16-video': {
    family: 'vjepa2',
    title: 'ViT-L/16 16f (vjepa2)',
    dim: 1024,
    layers: 24,
    heads: 16,
    ffn: 4096,
    patch: 16,
    tubelet: 2,
    size: 256,
    frames: 16,
  },
  'levjepa-l16': {
    family: 'levjepa',
    title: 'ViT-L/16 16f (levjepa)',
    dim: 1024,
    layers: 24,
    heads: 16,
    ffn: 4096,
    patch: 16,
    tubelet: 1,
    size: 224,
    frames: 16,
  },
  'videomae-b16': {
    family: 'videomae',
    title: 'VideoMAE-B/16 16f (videomae)',
    dim: 768,
    layers: 12,
    heads: 12,
    ffn: 3072,
    patch: 16,
    tubelet: 2,
    size: 224,
    frames: 16,
  },
  'vivit-b16': {
    family: 'vivit',
    title: 'ViViT-B/16x2 32f (vivit)',
    dim: 768,
    layers: 12,
    heads: 12,
    ffn: 3072,
    patch: 16,
    tubelet: 2,
    size: 224,
    frames: 32,
    act: 'gelu_tanh',
  },
  'vit-ti14': {
    family: 'hfvit',
    title: 'ViT-Ti/14 (the LeWM encoder shape)',
    dim: 192,
    layers: 12,
    heads: 3,
    ffn: 768,
    patch: 14,
    tubelet: 1,
    size: 224,
    frames: 1,
  },
};

const FILE_TYPES: Record<string, [number, number]> = { f32: [GgmlType.F32, 0], f16: [GgmlType.F16, 1] };

/** Quantized presets are the f32 preset through jepa-quantize. */
const QUANTIZED = ['q8_0', 'q8_row', 'q4_k', 'q4_0'];

export function presetModel(name: string, dtype: string, dir: string): string {
  const p = PRESETS[name];
  if (!p) throw new Error(`unknown model preset '${name}' (${Object.keys(PRESETS).join(', ')})`);
  const types = FILE_TYPES[dtype];
  if (!types && !QUANTIZED.includes(dtype.toLowerCase())) throw new Error(`unknown dtype '${dtype}' (f32, f16, ${QUANTIZED.join(', ')})`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}-${dtype}.gguf`);
  if (existsSync(path)) return path;
  if (!types) {
    const f32 = presetModel(name, 'f32', dir);
    const r = spawnSync(process.execPath, [quantizeMain(), f32, `${path}.partial`, dtype], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`jepa-quantize ${dtype} of ${f32} failed`);
    renameSync(`${path}.partial`, path);
    return path;
  }
  const grid = p.size / p.patch;
  forgeModel(p.family, {
    seed: 7,
    predictor: false,
    head: false,
    matmulType: types[0],
    path: `${path}.partial`,
    edit: (h: ModelHparams) => ({
      ...h,
      name: `bench ${p.title} (random weights)`,
      fileType: types[1],
      enc: {
        ...h.enc,
        embedDim: p.dim,
        nLayer: p.layers,
        nHead: p.heads,
        headDim: p.dim / p.heads,
        ffnDim: p.ffn,
        patchSize: p.patch,
        tubeletSize: p.tubelet,
        imgSize: p.size,
        nFrames: p.frames,
        gridSize: grid,
        gridFrames: p.frames / p.tubelet,
        nPatches: (p.frames / p.tubelet) * grid * grid,
        nReg: 0,
        layerScale: false,
        ...(p.act ? { act: p.act } : {}),
      },
      // the recipe of the preset's size (shortest edge ·256/224, centre crop), so files and clips go through it
      pre: { ...h.pre, resize: { mode: 'short' as const, size: Math.round((p.size * 256) / 224) }, crop: p.size },
    }),
  });
  renameSync(`${path}.partial`, path); // an interrupted forge leaves no file that looks finished
  return path;
}
