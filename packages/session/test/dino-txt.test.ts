// dino.txt through the session: the tokenizer built from the GGUF's merges gives the reference tokenizer's ids,
// embedText the float64 reference's text vectors, embed's default pool the aligned image vectors, textScores the
// reference's exp(logit_scale)·cos; a model without a text side refuses text calls in one line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertCheckpoint } from '@jepa/convert';
import { compareTokens, judge, policyRow } from '@jepa/graph';
import { DINOTXT_FILES, manifestOf, npy } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelSession, SessionError, textScores } from '../src/index.js';

const OUT = mkdtempSync(join(tmpdir(), 'jepa-session-dinotxt-'));
const { headAndText, backbone, vocab, textHeads } = DINOTXT_FILES;
const texts = (manifestOf('dinotxt') as unknown as { texts: string[] }).texts;
let session: ModelSession;
let plain: ModelSession;

beforeAll(async () => {
  await convertCheckpoint(headAndText, join(OUT, 'dinotxt.gguf'), { backbone, vocab, textHeads });
  await convertCheckpoint(backbone, join(OUT, 'dinov3.gguf'));
  session = await ModelSession.load(join(OUT, 'dinotxt.gguf'), { threads: 2 });
  plain = await ModelSession.load(join(OUT, 'dinov3.gguf'), { threads: 2, id: 'plain' });
});

afterAll(async () => {
  await session?.dispose();
  await plain?.dispose();
});

const flat = (vs: { values: Float32Array }[]) => {
  const out = new Float32Array(vs.reduce((a, v) => a + v.values.length, 0));
  let at = 0;
  for (const v of vs) {
    out.set(v.values, at);
    at += v.values.length;
  }
  return out;
};

function passes(actual: Float32Array, golden: string, width: number): boolean {
  const v = judge(policyRow('cpu', 'image', 'f32'), compareTokens(actual, npy('dinotxt', golden).data, width));
  console.log(`session dinotxt vs ${golden}: ${v.summary}`);
  return v.pass;
}

async function images() {
  return session.embed(
    ['', '_wide'].map((tag) => {
      const t = npy('dinov3_meta', `input${tag}.npy`);
      return { data: t.data, shape: t.shape.slice(1) };
    }),
  );
}

describe('dino.txt session', () => {
  it("tokenizes with the GGUF's merges exactly as the reference tokenizer, over-long text cut with the end token last", () => {
    const ids = npy('dinotxt', 'token_ids.npy');
    const width = ids.shape[1]!;
    texts.forEach((text, i) => {
      const expected = Array.from({ length: width }, (_, j) => Number((ids.data as unknown as BigInt64Array)[i * width + j]!));
      expect(Array.from(session.tokenizer().tokenize(text, width)), text).toEqual(expected);
    });
    expect(session.tokenizer().tokenize(texts.at(-1)!, width).at(-1)).toBe(session.spec.text!.endId);
  });

  it('embedText gives one reference text vector per text, in order; normalize gives unit rows', async () => {
    expect(session.hasText).toBe(true);
    const vectors = await session.embedText(texts);
    expect(vectors.map((v) => v.shape)).toEqual(texts.map(() => [session.spec.text!.outDim]));
    expect(passes(flat(vectors), 'text_vectors.npy', session.spec.text!.outDim)).toBe(true);
    const reversed = await session.embedText([...texts].reverse(), { normalize: true });
    reversed.reverse().forEach((v, i) => {
      const n = Math.hypot(...v.values);
      expect(Math.abs(n - 1)).toBeLessThan(1e-5);
      const raw = vectors[i]!.values;
      const rn = Math.hypot(...raw);
      for (const [j, x] of raw.entries()) expect(Math.abs(x / rn - v.values[j]!)).toBeLessThan(1e-5);
    });
  });

  it("an image's vector defaults to the aligned one, and textScores gives the reference's exp(logit_scale)·cos", async () => {
    expect(session.choosePool()).toBe('aligned');
    const imgs = await images();
    expect(passes(flat(imgs), 'image_vectors.npy', session.spec.text!.outDim)).toBe(true);
    const scores = session.textScores(imgs, await session.embedText(texts));
    const expected = npy('dinotxt', 'scores.npy').data;
    expect(scores.length).toBe(2);
    for (const [i, s] of scores.flatMap((row) => Array.from(row)).entries())
      expect(Math.abs(s - expected[i]!)).toBeLessThan(1e-4 * Math.max(1, Math.abs(expected[i]!)));
    // the same function, pure
    expect(textScores([imgs[0]!.values], [imgs[0]!.values], 0)[0]![0]).toBeCloseTo(1, 6);
  });

  it('a model without a text side refuses text calls, the aligned pool and scores in one line', async () => {
    expect(plain.hasText).toBe(false);
    expect(plain.choosePool()).toBe('cls');
    const refusal = await plain.embedText(['a dog']).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(SessionError);
    expect(refusal).toMatchObject({ code: 'unsupported_model', message: 'model: plain (dinov3) has no text tower; text needs a dino.txt model' });
    expect(() => plain.choosePool('aligned', '--pool')).toThrow(
      /^--pool: "aligned" needs a dino\.txt model; .* \(dinov3\) has no vision head or text tower$/,
    );
    expect(() => plain.textScores([], [])).toThrow(/has no text tower/);
  });
});
