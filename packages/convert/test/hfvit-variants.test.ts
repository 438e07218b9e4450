// The two DINOv2 block variants, use_swiglu_ffn (giant) and qkv_bias false: what the converter writes, how it
// refuses a config that contradicts the tensors, and two wrong models run by the engine, each of which must
// match its own float64 golden and fail the real one: the SwiGLU halves exchanged (gating x2 instead of x1),
// and the q/k/v biases present although the checkpoint has none.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GgmlType, loadModelSpec } from '@jepa/gguf';
import { compareTokens, cosine, judge, Model, policyRow, type Verdict } from '@jepa/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCheckpoint } from '../src/index.js';
import { dinov2SwigluWidth } from '../src/mappings/hf-vit-variants.js';
import { expectConvertError } from './fixtures.js';
import { manifestOf, npy, REFERENCE } from '@jepa/testing';

const OUT = mkdtempSync(join(tmpdir(), 'jepa-hfvit-variants-'));
const models: Model[] = [];
let swiglu: string;
let nobias: string;

beforeAll(async () => {
  swiglu = join(OUT, 'swiglu.gguf');
  nobias = join(OUT, 'nobias.gguf');
  await convertCheckpoint(join(REFERENCE, 'hfvit_swiglu'), swiglu);
  await convertCheckpoint(join(REFERENCE, 'hfvit_nobias'), nobias);
});

afterAll(() => {
  for (const m of models) m.dispose();
});

async function tokens(path: string, folder: string): Promise<{ tokens: Float32Array; dim: number; cls: Float32Array }> {
  const model = await Model.load(path, { threads: 2 });
  models.push(model);
  const ctx = model.createContext();
  try {
    const out = await ctx.encode(npy(folder, manifestOf(folder).input));
    return { tokens: out.tokens, dim: out.dim, cls: out.pool('cls') };
  } finally {
    ctx.dispose();
  }
}

function verdict(out: { tokens: Float32Array; dim: number; cls: Float32Array }, folder: string, golden: string): Verdict {
  const expected = npy(folder, golden).data;
  const v = judge(policyRow('cpu', 'image', 'f32'), compareTokens(out.tokens, expected, out.dim), cosine(out.cls, expected.subarray(0, out.dim)));
  console.log(`${folder} vs ${golden}: ${v.summary}`);
  return v;
}

/** A copy of the reference folder with config.json edited. */
function editedFolder(folder: string, edit: (config: Record<string, unknown>) => void): string {
  const dir = join(mkdtempSync(join(OUT, 'src-')), folder);
  cpSync(join(REFERENCE, folder), dir, { recursive: true });
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  edit(config);
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

/** The converted SwiGLU file with x1 and x2 exchanged in every block's w12 (rows and bias halves). */
function gatesSwappedCopy(path: string): string {
  const spec = loadModelSpec(path);
  const bytes = readFileSync(path);
  const h = spec.enc.ffnDim;
  for (let i = 0; i < spec.enc.nLayer; i++) {
    for (const [name, rowLen] of [
      [`enc.blk.${i}.ffn.w12.weight`, spec.enc.embedDim],
      [`enc.blk.${i}.ffn.w12.bias`, 1],
    ] as const) {
      const info = spec.tensors.get(name)!;
      expect(info.type).toBe(GgmlType.F32);
      const values = new Float32Array(bytes.buffer, bytes.byteOffset + info.offset, info.nbytes / 4);
      const first = values.slice(0, h * rowLen);
      values.copyWithin(0, h * rowLen);
      values.set(first, h * rowLen);
    }
  }
  const copy = path.replace(/\.gguf$/, '-gates-swapped.gguf');
  writeFileSync(copy, bytes);
  return copy;
}

describe('DINOv2 SwiGLU (use_swiglu_ffn)', () => {
  it('has the transformers width: int(int(D·mlp_ratio)·2/3) rounded up to a multiple of 8', () => {
    expect([dinov2SwigluWidth(1536, 4), dinov2SwigluWidth(64, 4), dinov2SwigluWidth(40, 4), dinov2SwigluWidth(48, 4)]).toEqual([4096, 176, 112, 128]);
  });

  it('is written as ffn_kind swiglu with act silu, w12 [D, 2h] and w3 [h, D]', () => {
    const spec = loadModelSpec(swiglu);
    expect([spec.enc.ffnKind, spec.enc.act, spec.enc.ffnDim, spec.enc.qkvBias]).toEqual(['swiglu', 'silu', 176, true]);
    expect(spec.header.metadata.get('jepa.enc.ffn_kind')).toEqual({ type: 'string', value: 'swiglu' });
    expect(spec.tensors.get('enc.blk.1.ffn.w12.weight')!.shape).toEqual([64, 352]);
    expect(spec.tensors.get('enc.blk.1.ffn.w3.weight')!.shape).toEqual([176, 64]);
    expect(spec.tensors.has('enc.blk.0.ffn.fc1.weight')).toBe(false);
  });

  it('refuses a config that contradicts the tensors', async () => {
    await expectConvertError(
      convertCheckpoint(
        editedFolder('hfvit_swiglu', (c) => {
          c.use_swiglu_ffn = false;
        }),
        join(OUT, 'x.gguf'),
      ),
      'CONVERT_BAD_CONFIG',
      /use_swiglu_ffn is false or absent, but the checkpoint has the SwiGLU 'encoder\.layer\.0\.mlp\.weights_in\.weight'/,
    );
    await expectConvertError(
      convertCheckpoint(
        editedFolder('hfvit', (c) => {
          c.use_swiglu_ffn = true;
        }),
        join(OUT, 'x.gguf'),
      ),
      'CONVERT_BAD_CONFIG',
      /use_swiglu_ffn is true, but the checkpoint has no 'encoder\.layer\.0\.mlp\.weights_in\.weight'/,
    );
    await expectConvertError(
      convertCheckpoint(
        editedFolder('hfvit_swiglu', (c) => {
          c.mlp_ratio = 3;
        }),
        join(OUT, 'x.gguf'),
      ),
      'CONVERT_SHAPE_MISMATCH',
      /'mlp_ratio' 3 × 64 gives a SwiGLU width of 128, but tensor 'encoder\.layer\.0\.mlp\.weights_in\.weight' implies 176/,
    );
  });

  it('with x1 and x2 exchanged matches the gates-swapped golden and fails the real one', async () => {
    const wrong = await tokens(gatesSwappedCopy(swiglu), 'hfvit_swiglu');
    expect(verdict(wrong, 'hfvit_swiglu', 'last_hidden_state_gates_swapped.npy').failures).toEqual([]);
    expect(verdict(wrong, 'hfvit_swiglu', 'last_hidden_state.npy').pass).toBe(false);
  });
});

describe('qkv_bias false', () => {
  it('is written as qkv_bias false with no attn.qkv.bias tensors; the plain file carries neither key', () => {
    const spec = loadModelSpec(nobias);
    expect([spec.enc.qkvBias, spec.enc.ffnKind]).toEqual([false, 'mlp']);
    expect(spec.header.metadata.get('jepa.enc.qkv_bias')).toEqual({ type: 'bool', value: false });
    expect([...spec.tensors.keys()].filter((n) => n.includes('attn.qkv'))).toEqual(['enc.blk.0.attn.qkv.weight', 'enc.blk.1.attn.qkv.weight']);
    const plain = join(OUT, 'plain.gguf');
    return convertCheckpoint(join(REFERENCE, 'hfvit'), plain).then(() => {
      const keys = [...loadModelSpec(plain).header.metadata.keys()];
      expect(keys.filter((k) => k === 'jepa.enc.qkv_bias' || k === 'jepa.enc.ffn_kind')).toEqual([]);
    });
  });

  it('refuses a config that contradicts the tensors', async () => {
    await expectConvertError(
      convertCheckpoint(
        editedFolder('hfvit_nobias', (c) => {
          c.qkv_bias = true;
        }),
        join(OUT, 'x.gguf'),
      ),
      'CONVERT_BAD_CONFIG',
      /qkv_bias is true, but the checkpoint has no 'encoder\.layer\.0\.attention\.attention\.query\.bias'/,
    );
    await expectConvertError(
      convertCheckpoint(
        editedFolder('hfvit', (c) => {
          c.qkv_bias = false;
        }),
        join(OUT, 'x.gguf'),
      ),
      'CONVERT_BAD_CONFIG',
      /qkv_bias is false, but the checkpoint has a 'encoder\.layer\.0\.attention\.attention\.query\.bias'/,
    );
  });

  it('with the q/k/v biases present matches the with-bias golden and fails the real one', async () => {
    const withBias = join(OUT, 'with-bias.gguf');
    await convertCheckpoint(join(REFERENCE, 'hfvit_nobias', 'with_qkv_bias'), withBias);
    expect(loadModelSpec(withBias).enc.qkvBias).toBe(true);
    const wrong = await tokens(withBias, 'hfvit_nobias');
    expect(verdict(wrong, 'hfvit_nobias', 'last_hidden_state_with_qkv_bias.npy').failures).toEqual([]);
    expect(verdict(wrong, 'hfvit_nobias', 'last_hidden_state.npy').pass).toBe(false);
  });
});
