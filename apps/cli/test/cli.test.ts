// The CLI as a user meets it: a child process, its stdout/stderr and exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { readNpy } from '@jepa/preprocess';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../../..');
const main = join(root, 'apps/cli/dist/main.js');
const demo = join(root, 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf');
const image = join(root, 'fixtures/preprocess/sample.jpg');
const clip = join(root, 'fixtures/preprocess/sample.mp4');
const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-'));

function jepa(...args: string[]) {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', env: { ...process.env, JEPA_DEVICE: 'cpu' } });
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
    expect(jepa('preprocess', '-m', demo, clip, '-o', x).code).toBe(0);
    const viaTensor = join(tmp, 'a.npy');
    const viaClip = join(tmp, 'b.npy');
    expect(jepa('embed', '-m', demo, '--input-npy', x, '--pool', 'none', '-o', viaTensor).code).toBe(0);
    expect(jepa('embed', '-m', demo, '--video', clip, '--pool', 'none', '-o', viaClip).code).toBe(0);
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
    expect(wrong.err).toMatch(/--pool lewm needs a LeWorldModel file/);
  });
});
