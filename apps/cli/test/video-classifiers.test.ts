// VideoMAE and ViViT as a user meets them: `jepa convert` of the HF folders (fixtures/reference/videomae,
// vivit: the real layouts, seeded tiny weights), then `jepa classify`, `embed` and `preprocess`, and
// jepa-quantize. Logits and pixels are judged against the float64 goldens (scripts/reference/fam_video_cls.py);
// the wrong-model controls recorded there must fail the same judge.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { compareTokens, cosine, judge, policyRow } from '@jepa/graph';
import { decodeImage, encodeNpy, readNpy } from '@jepa/preprocess';
import { classifierLogits, DEMO_MODEL, QUANTIZE_MAIN, REFERENCE, requireBuilt, runCli, SAMPLE_MP4 } from '@jepa/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-video-cls-'));
const KINETICS = ['abseiling', 'air drumming', 'answering questions', 'applauding', 'applying cream'];
const FAMILIES = ['videomae', 'vivit'] as const;
type VideoFamily = (typeof FAMILIES)[number];
const QUANTIZED = FAMILIES.flatMap((f) => (['q8_0', 'q8_row'] as const).map((t) => [f, t] as const));

function jepa(...args: string[]) {
  const r = runCli([...args], { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const fixture = (family: VideoFamily, file: string) => join(REFERENCE, family, file);
const f32 = (path: string) => readNpy(path).data as Float32Array;
const gguf = (family: VideoFamily, type = 'f32') => join(tmp, `${family}-${type}.gguf`);
let runs = 0;

/** jepa classify on the fixture's preprocessed clip: its printed top 5 and its logits. */
function classify(model: string): { top: { label: string; index: number }[]; logits: Float32Array } {
  const logits = join(tmp, `logits-${++runs}.npy`);
  const r = jepa(
    'classify',
    '-m',
    model,
    '--input-npy',
    fixture(model.includes('vivit') ? 'vivit' : 'videomae', 'input.npy'),
    '-k',
    '5',
    '--json',
    '--logits',
    logits,
    '-t',
    '2',
  );
  expect(r.code, r.err).toBe(0);
  return { top: (JSON.parse(r.out) as { top: { label: string; index: number }[] }).top, logits: f32(logits) };
}

function logitsVerdict(logits: Float32Array, expected: Float32Array, tier: 'f32' | 'q8') {
  return judge(policyRow('cpu', 'video', tier), compareTokens(logits, expected, expected.length));
}

beforeAll(() => {
  for (const family of FAMILIES) {
    const r = jepa('convert', join(REFERENCE, family), '-o', gguf(family));
    expect(r.code, r.err).toBe(0);
    for (const type of ['q8_0', 'q8_row']) {
      const q = spawnSync(process.execPath, [requireBuilt(QUANTIZE_MAIN, 'jepa-quantize'), gguf(family), gguf(family, type), type], {
        encoding: 'utf8',
      });
      expect(q.status, q.stderr).toBe(0);
    }
  }
}, 120_000);

describe('jepa convert reads the HF folders', () => {
  it('videomae: mean pooling without a final norm, fc_norm at 1e-5 beside the config eps 1e-12, the 1-D table, ImageNet recipe', () => {
    const s = loadModelSpec(gguf('videomae'));
    expect(s.family).toBe('videomae');
    expect(s.enc).toMatchObject({ pos: 'sincos1d', finalNorm: false, act: 'gelu', lnEps: Math.fround(1e-12), tubeletSize: 2, nFrames: 4 });
    expect(s.head).toEqual({ kind: 'linear', nClasses: 5, pool: 'mean', lnEps: Math.fround(1e-5) });
    expect(s.labels).toEqual(KINETICS);
    expect(s.pre).toMatchObject({ resize: { mode: 'short', size: 32 }, crop: 32, resample: 'bilinear', cropRounding: 'floor' });
    expect(s.pre.offset).toBeUndefined();
    expect(s.tensors.has('enc.norm.weight')).toBe(false);
  });

  it('vivit: gelu_fast as the tanh GELU, CLS and N + 1 learned rows, the head on the CLS, the double normalisation', () => {
    const s = loadModelSpec(gguf('vivit'));
    expect(s.family).toBe('vivit');
    expect(s.enc).toMatchObject({ pos: 'learned', nCls: 1, finalNorm: true, act: 'gelu_tanh', lnEps: Math.fround(1e-6) });
    expect(s.head).toEqual({ kind: 'linear', nClasses: 5, pool: 'first', lnEps: null });
    expect(s.labels).toEqual(KINETICS);
    expect(s.pre).toMatchObject({ rescale: Math.fround(1 / 127.5), offset: -1, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] });
    expect(s.pre.resize).toEqual({ mode: 'short', size: 36 });
  });
});

describe('jepa info', () => {
  it('says what each head reads, the missing final norm and the offset', () => {
    const m = jepa('info', gguf('videomae'), '--no-tensors');
    expect(m.out).toMatch(/positions sincos1d, no final norm\n/);
    expect(m.out).toMatch(/head: +linear on the token mean \(fc_norm\), 5 classes \(abseiling, air drumming, answering questions, …\)/);
    const v = jepa('info', gguf('vivit'), '--no-tensors');
    expect(v.out).toMatch(/head: +linear on token 0, 5 classes/);
    expect(v.out).toMatch(/rescale 0\.00784314 then −1, mean \[0\.500, 0\.500, 0\.500\]/);
  });
});

describe('jepa classify', () => {
  it.each(FAMILIES)('%s prints the Kinetics labels from id2label, best first, and its logits meet the f32 tier', (family) => {
    const expected = f32(fixture(family, 'logits.npy'));
    const { top, logits } = classify(gguf(family));
    const order = Array.from(expected.keys()).sort((a, b) => expected[b]! - expected[a]!);
    expect(top.map((t) => t.label)).toEqual(order.map((i) => KINETICS[i]));
    const v = logitsVerdict(logits, expected, 'f32');
    console.log(`${family} logits f32: ${v.summary}`);
    expect(v.failures).toEqual([]);
  });

  it('negative control: VideoMAE with fc_norm at the config eps (1e-12) fails the same judge', () => {
    const v = logitsVerdict(classify(gguf('videomae')).logits, f32(fixture('videomae', 'logits_fc_norm_config_eps.npy')), 'f32');
    console.log(`videomae control fc_norm at the config eps: ${v.summary}`);
    expect(v.pass).toBe(false);
  });

  // The VideoMAE fixture centres the token mean so fc_norm's eps shows (above): an 8-bit error is as large as
  // what fc_norm then reads, so its quantized files are judged on their tokens; ViViT's on its logits too.
  it.each(QUANTIZED)('%s at %s: its tokens meet the q8 tier; classify prints the labels', (family, type) => {
    const out = join(tmp, `${family}-${type}-tokens.npy`);
    const r = jepa('embed', '-m', gguf(family, type), '--input-npy', fixture(family, 'input.npy'), '--pool', 'none', '-o', out, '-t', '2');
    expect(r.code, r.err).toBe(0);
    const v = judge(policyRow('cpu', 'video', 'q8'), compareTokens(f32(out), f32(fixture(family, 'last_hidden_state.npy')), 32));
    console.log(`${family} ${type} tokens: ${v.summary}`);
    expect(v.failures).toEqual([]);
    const { top, logits } = classify(gguf(family, type));
    expect(top.map((t) => t.label).sort()).toEqual([...KINETICS].sort());
    if (family === 'vivit') {
      const expected = f32(fixture(family, 'logits.npy'));
      expect(top[0]!.index).toBe(expected.indexOf(Math.max(...expected)));
      expect(cosine(logits, expected)).toBeGreaterThan(0.99);
    }
  });
});

describe('a clip off the trained one', () => {
  it.each(FAMILIES)('%s: frames of another count are refused in one line that names the trained clip', (family) => {
    const frames = readNpy(fixture(family, 'frames.npy'));
    const six = join(tmp, `${family}-six.npy`);
    const u8 = frames.data as Uint8Array;
    writeFileSync(
      six,
      encodeNpy(
        Uint8Array.from({ length: (u8.length / 4) * 6 }, (_, i) => u8[i % u8.length]!),
        [6, ...frames.shape.slice(1)],
      ),
    );
    const r = jepa('classify', '-m', gguf(family), '--frames-npy', six, '-t', '1');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /\njepa: the position table covers the trained clip, 4 frames at 32² \(8 patch tokens\); this input gives 12: give 4 frames at 32 px\n$/,
    );
  });
});

describe('jepa classify --video', () => {
  // the sampling is the engine's, the same for every family: one run of each kind is enough
  it('vivit: one clip over the whole file by default; videomae: windows with --fps / --frames', () => {
    const whole = jepa('classify', '-m', gguf('vivit'), '--video', SAMPLE_MP4, '-k', '1', '-t', '2');
    expect(whole.code, whole.err).toBe(0);
    expect(whole.out).not.toMatch(/window/);
    const windows = jepa('classify', '-m', gguf('videomae'), '--video', SAMPLE_MP4, '--fps', '4', '--frames', '4', '-k', '1', '-t', '2');
    expect(windows.code, windows.err).toBe(0);
    expect(windows.out.match(/ window \d+ \[/g)?.length).toBeGreaterThan(1);
    const labels = [...`${whole.out}${windows.out}`.matchAll(/^ {2}1\. (.+?) {2}/gm)].map((m) => m[1]);
    expect(labels.length).toBeGreaterThan(2);
    for (const label of labels) expect(KINETICS).toContain(label);
  });
});

describe('jepa embed', () => {
  it.each(FAMILIES)('%s: the default pooling (token mean / CLS) is the golden pooled vector', (family) => {
    const out = join(tmp, `${family}-embed.npy`);
    const r = jepa('embed', '-m', gguf(family), '--input-npy', fixture(family, 'input.npy'), '-o', out, '-t', '2');
    expect(r.code, r.err).toBe(0);
    expect(cosine(f32(out), f32(fixture(family, 'pooled.npy')))).toBeGreaterThan(0.99999);
  });

  it.each(FAMILIES)('%s: --pool pooler is the vector the classifier reads: head.cls on it in the test gives the golden logits', (family) => {
    const out = join(tmp, `${family}-pooler.npy`);
    const r = jepa('embed', '-m', gguf(family), '--input-npy', fixture(family, 'input.npy'), '--pool', 'pooler', '-o', out, '-t', '2');
    expect(r.code, r.err).toBe(0);
    const expected = f32(fixture(family, 'logits.npy'));
    const tensors = loadModelSpec(gguf(family)).tensors;
    const rel = (pooled: Float32Array) => {
      const logits = classifierLogits(gguf(family), tensors, pooled);
      return logits.reduce((m, v, i) => Math.max(m, Math.abs(v - expected[i]!)), 0) / expected.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    };
    expect(rel(f32(out))).toBeLessThan(1e-4);
    // negative control for VideoMAE: the token mean the classifier's fc_norm reads (the default pooling)
    if (family === 'videomae') expect(rel(f32(fixture(family, 'pooled.npy')))).toBeGreaterThan(1e-2);
  });

  it('--pool pooler on a model without a classifier head is refused in one line', () => {
    const r = jepa('embed', '-m', DEMO_MODEL, '--input-npy', fixture('videomae', 'input.npy'), '--pool', 'pooler', '-o', join(tmp, 'x.npy'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: --pool: "pooler" needs a classifier head; .+ has none\n$/m);
  });

  it('vivit: key bias alone dropped equals the golden (the score shift is the same for every key), which is why VideoMAE zero-fills it', () => {
    const out = join(tmp, 'vivit-tokens.npy');
    expect(jepa('embed', '-m', gguf('vivit'), '--input-npy', fixture('vivit', 'input.npy'), '--pool', 'none', '-o', out, '-t', '2').code).toBe(0);
    const v = judge(policyRow('cpu', 'video', 'f32'), compareTokens(f32(out), f32(fixture('vivit', 'last_hidden_state_no_key_bias.npy')), 32));
    expect(v.failures).toEqual([]);
  });
});

describe('jepa preprocess of THWC uint8 frames', () => {
  function pixels(family: VideoFamily): Float32Array {
    const out = join(tmp, `${family}-pixels.npy`);
    const r = jepa('preprocess', '-m', gguf(family), fixture(family, 'frames.npy'), '-o', out);
    expect(r.code, r.err).toBe(0);
    expect(readNpy(out).shape).toEqual([1, 3, 4, 32, 32]);
    return f32(out);
  }
  const maxAbs = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);

  it.each(FAMILIES)('%s: the processor output of the HF slow processor (Pillow bilinear, floored crop)', (family) => {
    const d = maxAbs(pixels(family), f32(fixture(family, 'pixel_values.npy')));
    console.log(`${family} preprocess max |diff| ${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-5);
  });

  it('vivit: jepa features --view shows frame 0 as the network saw it, its offset undone', () => {
    const view = join(tmp, 'vivit-view.png');
    const r = jepa(
      'features',
      '-m',
      gguf('vivit'),
      '--frames-npy',
      fixture('vivit', 'frames.npy'),
      '--pca',
      '-o',
      join(tmp, 'map.png'),
      '--view',
      view,
      '-t',
      '2',
    );
    expect(r.code, r.err).toBe(0);
    const img = decodeImage(readFileSync(view));
    const px = f32(fixture('vivit', 'pixel_values.npy'));
    const plane = 4 * 32 * 32; // [1, 3, 4, 32, 32]: channel c of frame 0 starts at c · plane
    let worst = 0;
    for (let c = 0; c < 3; c++)
      for (let i = 0; i < 32 * 32; i++) worst = Math.max(worst, Math.abs(img.data[i * 3 + c]! - (px[c * plane + i]! * 0.5 + 0.5 + 1) * 127.5));
    expect([img.width, img.height]).toEqual([32, 32]);
    expect(worst).toBeLessThanOrEqual(0.51);
  });

  it('negative control: ViViT without its second normalisation is far from it', () => {
    expect(maxAbs(pixels('vivit'), f32(fixture('vivit', 'pixel_values_no_second_norm.npy')))).toBeGreaterThan(0.5);
  });
});
