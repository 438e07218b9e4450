/**
 * Forges the small GGUFs of fixtures/reference-heads/<case>/model.gguf: attentive heads, masked
 * predictors and a LeWM predictor, with shapes edited so the interesting cases show (a head_dim-32
 * V-JEPA 2 predictor: 5 RoPE frequencies per axis, the tiled layout's wrap-around). The float64
 * reference (scripts/reference-heads/make_heads_goldens.py) then reads them with gguf-py.
 * `pnpm fixtures:heads` in packages/worldmodel runs both.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expectedTensors, forgeModel, loadModelSpec, type Family, type ModelHparams } from '@jepa/gguf';

const root = resolve(import.meta.dirname, '../../../fixtures/reference-heads');
const f32 = Math.fround;

interface Case {
  name: string;
  family: Family;
  predictor: boolean;
  head: boolean;
  seed: number;
  edit: (h: ModelHparams) => ModelHparams;
}

const labels = (n: number) => Array.from({ length: n }, (_, i) => `class_${String.fromCharCode(97 + i)}`);

const CASES: Case[] = [
  {
    name: 'vjepa2_pooler',
    family: 'vjepa2',
    predictor: false,
    head: true,
    seed: 21,
    edit: (h) => ({ ...h, head: { ...h.head!, depth: 3, nHead: 4, headDim: 8, ffnDim: 128, nClasses: 10 }, labels: labels(10) }),
  },
  {
    name: 'vjepa_probe',
    family: 'vjepa',
    predictor: false,
    head: true,
    seed: 22,
    edit: (h) => ({ ...h, head: { ...h.head!, depth: 0, nHead: 4, headDim: 8, ffnDim: 128, nClasses: 7, lnEps: f32(1e-5) }, labels: labels(7) }),
  },
  {
    name: 'vjepa2_predictor',
    family: 'vjepa2',
    predictor: true,
    head: false,
    seed: 23,
    edit: (h) =>
      h.pred?.kind === 'masked'
        ? { ...h, pred: { ...h.pred, embedDim: 64, nHead: 2, headDim: 32, ffnDim: 128, nLayer: 2, nMaskTokens: 10, gridSize: 4 } }
        : h,
  },
  {
    name: 'vjepa2_1_predictor',
    family: 'vjepa2_1',
    predictor: true,
    head: false,
    seed: 24,
    edit: (h) =>
      h.pred?.kind === 'masked'
        ? { ...h, pred: { ...h.pred, embedDim: 64, nHead: 2, headDim: 32, ffnDim: 128, nLayer: 2, nMaskTokens: 8, gridSize: 4 } }
        : h,
  },
  {
    name: 'lewm',
    family: 'lewm',
    predictor: true,
    head: false,
    seed: 25,
    edit: (h) => (h.pred?.kind === 'action' ? { ...h, pred: { ...h.pred, nLayer: 3, nHead: 3, headDim: 16, ffnDim: 96 } } : h),
  },
];

/**
 * The forge's weights are uniform in ±0.1, which leaves attention almost uniform and positions
 * nearly invisible. Rescale every matmul weight to std 1/sqrt(fan_in), q and k rows ×2 more (so a
 * wrong RoPE layout or a missing causal mask shows), and the learned tokens to std ~0.5.
 */
function sharpen(path: string): void {
  const spec = loadModelSpec(path);
  const bytes = readFileSync(path);
  const roles = new Map(expectedTensors(spec).map((t) => [t.name, t.role]));
  const uniformStd = 0.2 / Math.sqrt(12);
  for (const [name, info] of spec.tensors) {
    const [fanIn, nOut] = info.shape as [number, number];
    const count = info.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(bytes.buffer, bytes.byteOffset + info.offset, count);
    let gain = 0;
    if (roles.get(name) === 'matmul') gain = 1 / (uniformStd * Math.sqrt(fanIn));
    else if (/mask_tokens|query|pos_embed|mod_embed/.test(name)) gain = 0.5 / uniformStd;
    if (gain === 0) continue;
    const qk = /attn\.qkv\.weight$|xattn\.(q|kv)\.weight$/.test(name);
    for (let i = 0; i < count; i++) {
      const row = Math.floor(i / fanIn);
      // q; k; v along the output axis (qkv) or k; v (kv): boost the q and k rows
      const boost = qk && (name.endsWith('xattn.q.weight') || row < (name.endsWith('kv.weight') ? nOut / 2 : (2 * nOut) / 3)) ? 2 : 1;
      data[i] = data[i]! * gain * boost;
    }
  }
  writeFileSync(path, bytes);
}

for (const c of CASES) {
  const dir = join(root, c.name);
  mkdirSync(dir, { recursive: true });
  const forged = forgeModel(c.family, { predictor: c.predictor, head: c.head, seed: c.seed, edit: c.edit, path: join(dir, 'model.gguf') });
  sharpen(forged.path);
  process.stdout.write(`${c.name}: ${forged.path} (${forged.bytes.length} bytes)\n`);
}
