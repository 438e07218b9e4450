#!/usr/bin/env node
// Writes the demo model the README's first command runs: a V-JEPA 2 layout (3-D RoPE, tubelet 2)
// at a small size with seeded random weights. It is UNTRAINED: its embeddings carry no meaning;
// it exists so a fresh clone can run the whole pipeline without downloading weights.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GgmlType, forgeModel } from '../packages/gguf/dist/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf');
mkdirSync(dirname(out), { recursive: true });
const f32 = Math.fround;

forgeModel('vjepa2', {
  seed: 2026,
  predictor: false,
  head: false,
  matmulType: GgmlType.F16,
  path: out,
  edit: (h) => ({
    ...h,
    name: 'jepa demo V-JEPA 2 layout (UNTRAINED, seeded random weights)',
    license: 'CC0-1.0',
    fileType: 1,
    enc: {
      ...h.enc,
      embedDim: 192,
      nLayer: 4,
      nHead: 3,
      headDim: 64,
      ffnDim: 768,
      patchSize: 16,
      tubeletSize: 2,
      imgSize: 128,
      nFrames: 8,
      gridSize: 8,
      gridFrames: 4,
      nPatches: 256,
    },
    pre: {
      mean: [0.485, 0.456, 0.406].map(f32),
      std: [0.229, 0.224, 0.225].map(f32),
      resize: { mode: 'short', size: 146 },
      crop: 128,
      resample: 'bilinear',
      rescale: f32(1 / 255),
      cropRounding: 'round',
    },
  }),
});
process.stderr.write(`wrote ${out}\n`);
