// dino.txt: Meta's vision-head-and-text-encoder file with its DINOv3 backbone and CLIP's merges, converted to one GGUF
// and judged against the float64 goldens of scripts/reference/fam_dinotxt.py: text vectors (from the reference
// tokenizer's ids), image aligned vectors, scores. Each control must fail the same judge: the text attention left
// non-causal, the last row pooled instead of the end token, the registers counted in the patch mean.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { compareTokens, judge, Model, policyRow, type Verdict } from '@jepa/graph';
import { DINOTXT_FILES, manifestOf, npy } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCheckpoint } from '../src/index.js';
import { expectConvertError } from './fixtures.js';

const OUT = mkdtempSync(join(tmpdir(), 'jepa-dinotxt-'));
const GGUF = join(OUT, 'dinotxt.gguf');
const FOLDER = 'dinotxt';
const { headAndText, backbone, vocab, textHeads } = DINOTXT_FILES;
let model: Model;

beforeAll(async () => {
  await convertCheckpoint(headAndText, GGUF, { backbone, vocab, textHeads });
  model = await Model.load(GGUF, { threads: 2 });
});

afterAll(async () => {
  await model?.dispose();
});

/** token_ids.npy is int64: its rows as numbers. */
const rowsOf = (ids: ArrayLike<number | bigint>, width: number) =>
  Array.from({ length: ids.length / width }, (_, i) => Array.from({ length: width }, (_, j) => Number(ids[i * width + j]!)));

function judged(what: string, actual: Float32Array, golden: string, width: number): Verdict {
  const v = judge(policyRow('cpu', 'image', 'f32'), compareTokens(actual, npy(FOLDER, golden).data, width));
  console.log(`dinotxt ${what} vs ${golden}: ${v.summary}`);
  return v;
}

function concat(rows: Float32Array[]): Float32Array {
  const out = new Float32Array(rows.reduce((a, r) => a + r.length, 0));
  let at = 0;
  for (const r of rows) {
    out.set(r, at);
    at += r.length;
  }
  return out;
}

async function textVectors(): Promise<Float32Array> {
  const ids = npy(FOLDER, 'token_ids.npy');
  const ctx = model.createTextContext();
  try {
    return concat(await ctx.embed(rowsOf(ids.data as unknown as BigInt64Array, ids.shape[1]!)));
  } finally {
    await ctx.dispose();
  }
}

async function imageVectors(): Promise<Float32Array> {
  const enc = model.createContext();
  const align = model.createAlignContext();
  try {
    const rows: Float32Array[] = [];
    for (const tag of ['', '_wide']) rows.push(...(await align.aligned(await enc.encode(npy('dinov3_meta', `input${tag}.npy`)))));
    return concat(rows);
  } finally {
    await enc.dispose();
    await align.dispose();
  }
}

describe('dino.txt', () => {
  it('converts to one dinov3 GGUF with the text section the file and vocabulary give', () => {
    const hp = manifestOf(FOLDER).hparams as Record<string, number>;
    const t = loadModelSpec(GGUF).text!;
    expect([t.embedDim, t.nLayer, t.nHead, t.ffnDim, t.context, t.outDim, t.vocabSize, t.merges.length]).toEqual([
      hp.text_dim,
      hp.text_layers,
      hp.text_heads,
      hp.text_ffn,
      hp.context,
      hp.out_dim,
      hp.vocab_size,
      hp.n_merges,
    ]);
    expect([t.visionNLayer, t.visionFfnDim, t.startId, t.endId]).toEqual([
      hp.head_blocks,
      hp.head_swiglu_hidden,
      hp.vocab_size - 2,
      hp.vocab_size - 1,
    ]);
    expect(t.logitScale).toBe(Math.fround(hp.logit_scale!));
    expect(t.merges.slice(0, 3)).toEqual(['i n', 't h', 'a n']);
  });

  it('text vectors from the reference ids pass the cpu/image/f32 row; non-causal attention and last-row pooling fail it', async () => {
    const v = await textVectors();
    const width = loadModelSpec(GGUF).text!.outDim;
    expect(judged('text', v, 'text_vectors.npy', width).pass).toBe(true);
    expect(judged('text', v, 'text_noncausal.npy', width).pass).toBe(false);
    expect(judged('text', v, 'text_last_token.npy', width).pass).toBe(false);
  });

  it('image aligned vectors (square and wide grid) pass; registers in the patch mean fail', async () => {
    const v = await imageVectors();
    const width = loadModelSpec(GGUF).text!.outDim;
    expect(judged('image', v, 'image_vectors.npy', width).pass).toBe(true);
    expect(judged('image', v, 'image_registers_in_mean.npy', width).pass).toBe(false);
  });

  it('refuses a dino.txt file without --backbone, a missing vocabulary, and --backbone on a plain backbone', async () => {
    await expectConvertError(
      convertCheckpoint(headAndText, join(OUT, 'x.gguf'), { vocab, textHeads }),
      'CONVERT_BAD_OPTION',
      /give its DINOv3 backbone with --backbone/,
    );
    const alone = join(mkdtempSync(join(tmpdir(), 'jepa-dinotxt-')), 'head.pth');
    copyFileSync(headAndText, alone);
    await expectConvertError(
      convertCheckpoint(alone, join(OUT, 'x.gguf'), { backbone, textHeads }),
      'CONVERT_IO',
      /bpe_simple_vocab_16e6\.txt\.gz: no such file; give CLIP's vocabulary with --vocab/,
    );
    await expectConvertError(convertCheckpoint(backbone, join(OUT, 'x.gguf'), { backbone }), 'CONVERT_BAD_OPTION', /not one/);
    await expectConvertError(convertCheckpoint(headAndText, join(OUT, 'x.gguf'), { backbone, vocab }), 'CONVERT_BAD_OPTION', /--text-heads/);
  });

  it('takes bpe_simple_vocab_16e6.txt.gz beside the file by default', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jepa-dinotxt-'));
    copyFileSync(headAndText, join(dir, 'head.pth'));
    copyFileSync(vocab, join(dir, 'bpe_simple_vocab_16e6.txt.gz'));
    const s = await convertCheckpoint(join(dir, 'head.pth'), join(dir, 'm.gguf'), { backbone, textHeads });
    expect(s.hparams.text?.merges.length).toBe(128);
  });
});
