// --no-predictor / --no-head: the encoder alone, loadable, with no predictor or head keys or tensors and
// the same encoder bytes (so the same tokens) as the full conversion; a predictor entry that cannot be
// mapped is refused with the way round it, and converts for its encoder with the flag.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModelSpec, type ModelSpec } from '@jepa/gguf';
import { Model } from '@jepa/graph';
import { npy, REFERENCE } from '@jepa/testing';
import { describe, expect, it } from 'vitest';
import { convertCheckpoint, type ConvertOptions } from '../src/index.js';
import { expectConvertError, tempDir } from './fixtures.js';
import { seeded, tensorsOf, writeSafetensors, type RawTensor } from './synthetic-checkpoint.js';

const data = join(__dirname, 'data');
const ijepaPred = join(REFERENCE, 'ijepa_pred', 'ijepa_pred_fixture.pth.tar');

async function convert(src: string, options: ConvertOptions): Promise<{ path: string; spec: ModelSpec; notes: string[] }> {
  const path = join(tempDir(), 'm.gguf');
  const summary = await convertCheckpoint(src, path, options);
  return { path, spec: loadModelSpec(path), notes: summary.notes };
}

function partKeys(spec: ModelSpec, part: 'pred' | 'head'): string[] {
  return [...spec.tensors.keys(), ...spec.header.metadata.keys()].filter((k) => k.startsWith(`${part}.`) || k.startsWith(`jepa.${part}.`));
}

/** The bytes of every tensor of `spec` read from `path`. */
function tensorBytes(path: string, spec: ModelSpec): Map<string, Buffer> {
  const file = readFileSync(path);
  return new Map([...spec.tensors.values()].map((t) => [t.name, file.subarray(t.offset, t.offset + t.nbytes)]));
}

async function tokens(path: string, input: { data: Float32Array; shape: number[] }): Promise<Float32Array> {
  const model = await Model.load(path, { threads: 2 });
  const ctx = model.createContext();
  try {
    return (await ctx.encode(input)).tokens;
  } finally {
    ctx.dispose();
    model.dispose();
  }
}

describe('--no-predictor', () => {
  it('writes the encoder of a Meta I-JEPA pickle alone: no predictor keys or tensors, the same encoder bytes and tokens', async () => {
    const full = await convert(ijepaPred, { nHead: 2 });
    const trimmed = await convert(ijepaPred, { nHead: 2, noPredictor: true });
    expect(partKeys(full.spec, 'pred').length).toBeGreaterThan(0);
    expect(partKeys(trimmed.spec, 'pred')).toEqual([]);
    expect(trimmed.spec.pred).toBeNull();
    expect(trimmed.notes.join('\n')).toMatch(/'predictor' entry left out \(--no-predictor\)/);
    const fullBytes = tensorBytes(full.path, full.spec);
    const kept = tensorBytes(trimmed.path, trimmed.spec);
    expect([...kept.keys()]).toEqual([...fullBytes.keys()].filter((n) => !n.startsWith('pred.')));
    for (const [name, bytes] of kept) expect(bytes.equals(fullBytes.get(name)!), name).toBe(true);
    const input = npy('ijepa_pred', 'input.npy');
    const a = await tokens(full.path, input);
    const b = await tokens(trimmed.path, input);
    expect(Buffer.from(b.buffer, b.byteOffset, b.byteLength).equals(Buffer.from(a.buffer, a.byteOffset, a.byteLength))).toBe(true);
  });

  it('a predictor entry that cannot be mapped is refused with the advice; --no-predictor converts the encoder', async () => {
    const src = join(data, 'meta-vjepa2-predictor-no-embed.pt');
    const tiny = { nHead: 2, predNHead: 2 };
    await expectConvertError(
      convertCheckpoint(src, join(tempDir(), 'x.gguf'), tiny),
      'CONVERT_MISSING_TENSOR',
      /has no tensor 'predictor_embed\.weight'; --no-predictor converts the encoder alone$/,
    );
    const { spec } = await convert(src, { ...tiny, noPredictor: true });
    expect([spec.family, spec.pred]).toEqual(['vjepa2', null]);
  });

  it('an unmapped tensor in a predictor entry is refused with the advice; an encoder-side one is not', async () => {
    const src = join(data, 'meta-vjepa2-ac-extra.pt');
    const tiny = { nHead: 2, predNHead: 2 };
    await expectConvertError(
      convertCheckpoint(src, join(tempDir(), 'x.gguf'), tiny),
      'CONVERT_UNMAPPED_TENSORS',
      /--no-predictor converts the encoder alone\): action_gate\.weight$/,
    );
    const { spec } = await convert(src, { ...tiny, noPredictor: true });
    expect([spec.family, spec.pred]).toEqual(['vjepa2', null]);
    // negative control: unmapped tensors of an HF encoder get no predictor advice
    const dir = join(tempDir(), 'hfvit');
    cpSync(join(REFERENCE, 'hfvit'), dir, { recursive: true });
    const tensors = await tensorsOf(join(dir, 'model.safetensors'));
    tensors.set('encoder.extra.weight', seeded([4], 1));
    writeSafetensors(join(dir, 'model.safetensors'), tensors);
    const refused = await expectConvertError(convertCheckpoint(dir, join(tempDir(), 'y.gguf')), 'CONVERT_UNMAPPED_TENSORS', /encoder\.extra\.weight/);
    expect(refused.message).not.toMatch(/--no-predictor/);
  });

  it('a LeWM file with its action predictor becomes the hfvit encoder, the world-model parts skipped by rule', async () => {
    const dir = join(tempDir(), 'lewm');
    mkdirSync(dir);
    const tensors = new Map<string, RawTensor>(await tensorsOf(join(REFERENCE, 'lewm', 'weights.pt')));
    tensors.set('predictor.pos_embedding', seeded([1, 3, 48], 1));
    tensors.set('action_encoder.embed.0.weight', seeded([40, 10], 2));
    writeSafetensors(join(dir, 'model.safetensors'), tensors);
    writeFileSync(join(dir, 'config.json'), readFileSync(join(REFERENCE, 'lewm', 'config.json')));
    await expect(convertCheckpoint(dir, join(tempDir(), 'x.gguf'))).rejects.toThrow(); // the predictor is incomplete
    const path = join(tempDir(), 'enc.gguf');
    const s = await convertCheckpoint(dir, path, { noPredictor: true });
    expect(s.family).toBe('hfvit');
    expect(s.ignored).toEqual(expect.arrayContaining(['predictor.pos_embedding', 'action_encoder.embed.0.weight']));
    expect(s.notes.join('\n')).toMatch(/action predictor left out \(--no-predictor\)/);
    expect(partKeys(loadModelSpec(path), 'pred')).toEqual([]);
  });
});

describe('--no-head', () => {
  /** The HF V-JEPA 2 fixture as a VJEPA2ForVideoClassification folder: a one-block pooler and 3 classes. */
  async function classifierFolder(): Promise<string> {
    const D = 160;
    const tensors = new Map<string, RawTensor>();
    for (const [n, t] of await tensorsOf(join(REFERENCE, 'vjepa2', 'model.safetensors'))) tensors.set(`vjepa2.${n}`, t);
    let seed = 11;
    const add = (name: string, shape: number[], offset = 0) => tensors.set(name, seeded(shape, seed++, offset));
    const norm = (p: string) => {
      add(`${p}.weight`, [D], 1);
      add(`${p}.bias`, [D]);
    };
    const linear = (p: string, nIn: number, nOut: number) => {
      add(`${p}.weight`, [nOut, nIn]);
      add(`${p}.bias`, [nOut]);
    };
    add('pooler.query_tokens', [1, 1, D]);
    const s = 'pooler.self_attention_layers.0';
    norm(`${s}.layer_norm1`);
    for (const proj of ['q_proj', 'k_proj', 'v_proj', 'out_proj']) linear(`${s}.self_attn.${proj}`, D, D);
    norm(`${s}.layer_norm2`);
    linear(`${s}.mlp.fc1`, D, 4 * D);
    linear(`${s}.mlp.fc2`, 4 * D, D);
    const x = 'pooler.cross_attention_layer';
    norm(`${x}.layer_norm1`);
    for (const proj of ['q_proj', 'k_proj', 'v_proj']) linear(`${x}.cross_attn.${proj}`, D, D);
    norm(`${x}.layer_norm2`);
    linear(`${x}.mlp.fc1`, D, 4 * D);
    linear(`${x}.mlp.fc2`, 4 * D, D);
    linear('classifier', D, 3);
    const dir = join(tempDir(), 'vjepa2-cls');
    mkdirSync(dir);
    writeSafetensors(join(dir, 'model.safetensors'), tensors);
    const base = JSON.parse(readFileSync(join(REFERENCE, 'vjepa2', 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...base, num_pooler_layers: 1, id2label: { 0: 'a', 1: 'b', 2: 'c' } }));
    return dir;
  }

  it('drops the classifier and its labels, keeping the encoder bytes; --probe with it is refused', async () => {
    const dir = await classifierFolder();
    const full = await convert(dir, {});
    const trimmed = await convert(dir, { noHead: true });
    expect(partKeys(full.spec, 'head').length).toBeGreaterThan(0);
    expect(full.spec.labels).toEqual(['a', 'b', 'c']);
    expect(partKeys(trimmed.spec, 'head')).toEqual([]);
    expect([trimmed.spec.head, trimmed.spec.labels]).toEqual([null, null]);
    expect(trimmed.notes).toContain('classifier head left out (--no-head)');
    const fullBytes = tensorBytes(full.path, full.spec);
    for (const [name, bytes] of tensorBytes(trimmed.path, trimmed.spec)) expect(bytes.equals(fullBytes.get(name)!), name).toBe(true);
    await expectConvertError(
      convertCheckpoint(dir, join(tempDir(), 'x.gguf'), { noHead: true, probe: dir }),
      'CONVERT_BAD_OPTION',
      /--probe adds a classifier head, which --no-head leaves out/,
    );
  });
});
