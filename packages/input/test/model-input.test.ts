// ModelInput: files to the model's tensors. The native path (sharp decode, the addon's recipe)
// against the pure-JS path on the same pixels, for stills and clips.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelSpec } from '@jepa/gguf';
import { ModelInput } from '../src/model-input.js';
import { decodeImage } from '../src/decode/index.js';

const root = resolve(__dirname, '../../..');
const demo = loadModelSpec(join(root, 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf'));
const clip = join(root, 'fixtures/preprocess/sample.mp4');
const png = join(root, 'fixtures/input/decode/graya8.png');
const same = (a: Float32Array, b: Float32Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

describe('ModelInput', () => {
  it('a clip through the addon is bit-identical to the TypeScript recipe on the same ffmpeg frames', async () => {
    const native = await new ModelInput(demo).video(clip);
    const js = await new ModelInput(demo, { decoder: 'js' }).video(clip);
    expect(native.shape.slice(0, 2)).toEqual([3, demo.enc.nFrames]);
    expect(same(native.data, js.data)).toBe(true);
  });

  it('a still for a video family is repeated to the trained frames, once noticed, and equals the JS path', async () => {
    const notices: string[] = [];
    const input = new ModelInput(demo, { notice: (m) => notices.push(m) });
    const a = await input.image(png);
    const b = await input.imageBytes(readFileSync(png));
    expect(a.shape[1]).toBe(demo.enc.nFrames);
    expect(same(a.data, b.data)).toBe(true);
    expect(notices).toHaveLength(1);
    const plane = a.shape[2]! * a.shape[3]!;
    for (let t = 1; t < demo.enc.nFrames; t++) expect(same(a.data.subarray(t * plane, (t + 1) * plane), a.data.subarray(0, plane))).toBe(true);
    expect(same(a.data, (await new ModelInput(demo, { decoder: 'js' }).image(png)).data)).toBe(true);
  });

  it('negative control: the clip with its frames reversed is not the same tensor', async () => {
    const input = new ModelInput(demo);
    const { readVideoFrames } = await import('@jepa/preprocess');
    const frames = await readVideoFrames(clip, demo.enc.nFrames);
    const forward = await input.clip(frames);
    const backward = await input.clip({ ...frames, frames: [...frames.frames].reverse() });
    expect(same(forward.data, backward.data)).toBe(false);
  });

  it("EXIF orientation through the resampler's strides equals the recipe on the upright (Pillow-identical) pixels", async () => {
    const dir = join(root, 'fixtures/input/decode');
    const files = [1, 2, 3, 4, 5, 6, 7, 8].map((o) => `orient${o}.jpg`).concat(['orient6.png', 'orient6.tif', 'orient6.webp']);
    const input = new ModelInput(demo);
    const js = new ModelInput(demo, { decoder: 'js' });
    for (const f of files) {
      const bytes = readFileSync(join(dir, f));
      const viaStrides = await input.imageBytes(bytes);
      const upright = await input.still(await decodeImage(bytes));
      expect(same(viaStrides.data, upright.data), f).toBe(true);
      const stored = await new ModelInput(demo, { exifOrient: false }).imageBytes(bytes);
      if (!f.startsWith('orient1')) expect(same(viaStrides.data, stored.data), `${f} stored`).toBe(false);
      if (f.endsWith('.png')) expect(same(viaStrides.data, (await js.imageBytes(bytes)).data), `${f} js`).toBe(true);
    }
  });

  it('a missing file is an io_error naming the problem', async () => {
    await expect(new ModelInput(demo).image(join(root, 'no-such.jpg'))).rejects.toMatchObject({ code: 'io_error' });
  });
});
