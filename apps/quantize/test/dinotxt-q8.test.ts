// A quantized dino.txt: at q8_row every matmul of the text tower and the vision head is int8 (the tiny tower's rows of
// 16 are not whole q8_0 blocks; q8_0 keeps those and quantizes the vision head), the token table stays f32 for
// get_rows, and the text and image vectors still meet the q8 tier against the float64 reference.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertCheckpoint } from '@jepa/convert';
import { GgmlType, loadModelSpec, tensorNames } from '@jepa/gguf';
import { compareTokens, judge, Model, policyRow } from '@jepa/graph';
import { DINOTXT_FILES, npy } from '@jepa/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { quantizeFile } from '../src/quantize-file.js';

const OUT = mkdtempSync(join(tmpdir(), 'jepa-dinotxt-q8-'));
const F32 = join(OUT, 'dinotxt-f32.gguf');

beforeAll(async () => {
  const { headAndText, backbone, vocab, textHeads } = DINOTXT_FILES;
  await convertCheckpoint(headAndText, F32, { backbone, vocab, textHeads });
});

const flat = (rows: Float32Array[]) => {
  const out = new Float32Array(rows.reduce((a, r) => a + r.length, 0));
  let at = 0;
  for (const r of rows) {
    out.set(r, at);
    at += r.length;
  }
  return out;
};

async function vectors(path: string): Promise<{ text: Float32Array; image: Float32Array; width: number }> {
  const model = await Model.load(path, { threads: 2 });
  try {
    const ids = npy('dinotxt', 'token_ids.npy');
    const width = ids.shape[1]!;
    const big = ids.data as unknown as BigInt64Array;
    const rows = Array.from({ length: big.length / width }, (_, i) => Array.from(big.subarray(i * width, (i + 1) * width), Number));
    const text = flat(await model.createTextContext().embed(rows));
    const enc = model.createContext();
    const align = model.createAlignContext();
    const image: Float32Array[] = [];
    for (const tag of ['', '_wide']) image.push(...(await align.aligned(await enc.encode(npy('dinov3_meta', `input${tag}.npy`)))));
    return { text, image: flat(image), width: model.spec.text!.outDim };
  } finally {
    await model.dispose();
  }
}

describe('dino.txt quantized', () => {
  for (const type of ['q8_row', 'q8_0'] as const) {
    it(`${type}: text and image vectors meet the q8 tier; the token table stays f32`, async () => {
      const path = join(OUT, `dinotxt-${type}.gguf`);
      await quantizeFile(F32, path, type);
      const spec = loadModelSpec(path);
      const typeOf = (name: string) => spec.tensors.get(name)!.type;
      expect(typeOf(tensorNames.textTokenEmbd)).toBe(GgmlType.F32);
      expect(typeOf(`${tensorNames.alignBlock(0)}.attn.qkv.weight`)).not.toBe(GgmlType.F32);
      if (type === 'q8_row') expect(typeOf(`${tensorNames.textBlock(0)}.ffn.fc1.weight`)).toBe(GgmlType.I8);
      const v = await vectors(path);
      for (const [what, actual, golden] of [
        ['text', v.text, 'text_vectors.npy'],
        ['image', v.image, 'image_vectors.npy'],
      ] as const) {
        const verdict = judge(policyRow('cpu', 'image', 'q8'), compareTokens(actual, npy('dinotxt', golden).data, v.width));
        console.log(`dinotxt ${type} ${what} ${verdict.summary}`);
        expect(verdict.failures).toEqual([]);
      }
    });
  }
});
