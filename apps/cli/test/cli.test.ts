// The CLI as a user meets it: a child process, its stdout/stderr and exit code.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { readNpy } from '@jepa/preprocess';
import { DEMO_MODEL, REPO_ROOT, runCli, SAMPLE_JPG, SAMPLE_MP4 } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const demo = DEMO_MODEL;
const image = SAMPLE_JPG;
const clip = SAMPLE_MP4;
const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-'));

function jepa(...args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('jepa info and devices', () => {
  it('summarises the demo model, labelled untrained', () => {
    const r = jepa('info', demo);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/UNTRAINED/);
    expect(r.out).toMatch(/family:\s+vjepa2/);
    expect(r.out).toMatch(/enc\.blk\.3\.attn\.qkv\.weight\s+f16/);
  });

  it('--json carries the hparams', () => {
    const r = jepa('info', demo, '--json', '--no-tensors');
    const j = JSON.parse(r.out);
    expect(j.enc.embedDim).toBe(192);
    expect(j.tensors).toBeUndefined();
  });

  it('a broken model is a one-line user error without a stack', () => {
    const forged = forgeModel('hfvit', { truncateTo: 2000 });
    const r = jepa('info', forged.path);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/^jepa: /);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('lists the CPU', () => {
    expect(jepa('devices').out).toMatch(/CPU \(cpu\)/);
  });
});

describe('jepa embed', () => {
  it('embeds an image and a clip into .npy, saying the still was repeated', () => {
    const out = join(tmp, 'e.npy');
    const r = jepa('embed', '-m', demo, image, '--video', clip, '-o', out);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/repeated to its 8 trained frames/);
    expect(r.err).toMatch(/2 embedded/);
    const npy = readNpy(out);
    expect(npy.shape).toEqual([2, 192]);
  });

  it('--pool none writes every token; --input-npy bypasses preprocessing and agrees with it', () => {
    const x = join(tmp, 'x.npy');
    const ok = (r: ReturnType<typeof jepa>) => expect(r.code, r.err).toBe(0);
    ok(jepa('preprocess', '-m', demo, clip, '-o', x));
    const viaTensor = join(tmp, 'a.npy');
    const viaClip = join(tmp, 'b.npy');
    ok(jepa('embed', '-m', demo, '--input-npy', x, '--pool', 'none', '-o', viaTensor));
    ok(jepa('embed', '-m', demo, '--video', clip, '--pool', 'none', '-o', viaClip));
    const a = readNpy(viaTensor);
    const b = readNpy(viaClip);
    expect(a.shape).toEqual([1, 256, 192]);
    expect(Buffer.from((a.data as Float32Array).buffer).equals(Buffer.from((b.data as Float32Array).buffer))).toBe(true);
  });

  it('one bad file is reported and skipped; the exit code says some failed', () => {
    const bad = join(tmp, 'bad.jpg');
    writeFileSync(bad, 'not an image');
    const out = join(tmp, 'ok.jsonl');
    const r = jepa('embed', '-m', demo, image, bad, '-o', out);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/bad\.jpg: .*\(skipped\)/);
    expect(r.err).toMatch(/1 of 2 inputs failed/);
  });

  it('refuses CLS pooling on a model without CLS', () => {
    const r = jepa('embed', '-m', demo, image, '--pool', 'cls');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no CLS token/);
  });
});

describe('jepa embed --pool lewm', () => {
  it('writes the LeWorldModel state (projector over CLS) and refuses other families', () => {
    const lewm = forgeModel('lewm', { path: join(tmp, 'lewm.gguf') });
    const out = join(tmp, 'state.npy');
    const r = jepa('embed', '-m', lewm.path, image, '--pool', 'lewm', '-o', out);
    expect(r.code).toBe(0);
    expect(readNpy(out).shape).toEqual([1, lewm.hparams.pred!.embedDim]);
    const cls = join(tmp, 'cls.npy');
    expect(jepa('embed', '-m', lewm.path, image, '--pool', 'cls', '-o', cls).code).toBe(0);
    expect(Buffer.from((readNpy(out).data as Float32Array).buffer).equals(Buffer.from((readNpy(cls).data as Float32Array).buffer))).toBe(false);
    const wrong = jepa('embed', '-m', demo, image, '--pool', 'lewm');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/--pool: "lewm" needs a LeWorldModel; this is vjepa2/);
  });
});

describe('jepa embed and preprocess: input decoding', () => {
  const decodeDir = join(REPO_ROOT, 'fixtures/input/decode');
  const tensorOf = (file: string, ...flags: string[]) => {
    const out = join(tmp, `pre-${Math.random().toString(36).slice(2)}.npy`);
    const r = jepa('preprocess', '-m', demo, file, '-o', out, ...flags);
    expect(r.code, r.err).toBe(0);
    return Buffer.from((readNpy(out).data as Float32Array).buffer);
  };

  it('refuses an output path it cannot write before loading the model', () => {
    const r = jepa('embed', '-m', demo, image, '-o', join(tmp, 'no-such-dir', 'out.npy'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: -o .*out\.npy: the folder .*no-such-dir does not exist\n$/);
    expect(r.err).not.toMatch(/model:/);
    const folder = join(tmp, 'a-folder.npy');
    mkdirSync(folder, { recursive: true });
    const dir = jepa('embed', '-m', demo, image, '-o', folder);
    expect(dir.code).toBe(2);
    expect(dir.err).toMatch(/that is a folder/);
  });

  it('the native and the pure-JS decoders give the same tensor for a PNG', () => {
    const png = join(decodeDir, 'graya8.png');
    expect(tensorOf(png, '--decoder', 'native').equals(tensorOf(png, '--decoder', 'js'))).toBe(true);
  });

  it('applies EXIF orientation unless told not to, in both decoders', () => {
    const rotated = join(decodeDir, 'orient6.jpg');
    const upright = tensorOf(rotated);
    const stored = tensorOf(rotated, '--no-exif-orient');
    expect(upright.equals(stored)).toBe(false);
    const js = tensorOf(rotated, '--decoder', 'js');
    const jsStored = tensorOf(rotated, '--decoder', 'js', '--no-exif-orient');
    expect(js.equals(jsStored)).toBe(false);
  });

  it('reads WebP, TIFF and GIF natively; the pure-JS path refuses them by name', () => {
    const files = ['lossy.webp', 'gray.tif', 'animated.gif'].map((f) => join(decodeDir, f));
    const out = join(tmp, 'formats.jsonl');
    const r = jepa('embed', '-m', demo, ...files, '-o', out);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/3 embedded/);
    const js = jepa('embed', '-m', demo, files[0]!, '--decoder', 'js', '-o', out);
    expect(js.code).toBe(3);
    expect(js.err).toMatch(/lossy\.webp: not a JPEG or PNG image/);
  });

  it('a truncated or corrupt file is one line naming the file and the format, and a run where all fail says so', () => {
    const corrupt = join(decodeDir, 'corrupt.png');
    const r = jepa('embed', '-m', demo, corrupt, '-o', join(tmp, 'none.npy'));
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/corrupt\.png: .*PNG.*\(skipped\)\n/);
    expect(r.err).toMatch(/nothing embedded: all 1 inputs failed/);
    expect(r.err).not.toMatch(/items\/s/);
  });
});
