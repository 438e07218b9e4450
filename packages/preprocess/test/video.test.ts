import { writeFileSync, mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  preprocessClip,
  PreprocessError,
  readFramesNpy,
  readNpy,
  readVideoFrames,
  resizeAndCropU8,
  sampleIndices,
  type PreprocessRecipe,
} from '../src/index.js';
import { firstDifference, fixturePath, readFixture, readJsonFixture, ulpDistance } from './fixtures.js';

interface ClipCase {
  file: string;
  n: number;
  indices: number[];
  totalFrames: number;
  width: number;
  height: number;
  containerNbFrames: number | null;
  frames: string;
  note: string;
}
const manifest = readJsonFixture<{
  clips: ClipCase[];
  clipRecipe: { frames: string; recipe: PreprocessRecipe; u8: string; levels: string };
}>('video', 'manifest.json');
const scratch = mkdtempSync(join(tmpdir(), 'jepa-video-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('readVideoFrames against PyAV to_ndarray(rgb24)', () => {
  for (const clip of manifest.clips) {
    it(`${clip.file} n=${clip.n}: ${clip.note}`, async () => {
      const got = await readVideoFrames(fixturePath(clip.file), clip.n);
      expect(got.totalFrames).toBe(clip.totalFrames);
      expect(got.indices).toEqual(clip.indices);
      expect(got.indices).toEqual(sampleIndices(clip.totalFrames, clip.n));
      expect([got.width, got.height]).toEqual([clip.width, clip.height]);
      const reference = readFramesNpy(fixturePath(clip.frames));
      expect(reference.frames.length).toBe(clip.n);
      expect(got.frames.length).toBe(clip.n);
      for (let t = 0; t < clip.n; t++) {
        expect(`frame ${t}: ${firstDifference(got.frames[t], reference.frames[t])}`).toBe(`frame ${t}: identical`);
      }
    });
  }

  it('the fixtures cover a lying container, a counted (nb_frames-less) clip and a clip shorter than n', () => {
    expect(manifest.clips.some((c) => c.containerNbFrames !== null && c.containerNbFrames !== c.totalFrames)).toBe(true);
    expect(manifest.clips.some((c) => c.containerNbFrames === null)).toBe(true);
    expect(manifest.clips.some((c) => c.totalFrames < c.n)).toBe(true);
  });

  it('negative control: neighbouring frames differ, so a sampling error cannot pass', async () => {
    const clip = manifest.clips.find((c) => c.file === 'sample.mp4')!;
    const got = await readVideoFrames(fixturePath(clip.file), clip.n);
    const reference = readFramesNpy(fixturePath(clip.frames));
    expect(firstDifference(got.frames[1], reference.frames[2])).not.toBe('identical');
  });

  it('a corrupt clip is a typed error, not a hang', async () => {
    const garbage = join(scratch, 'garbage.mp4');
    writeFileSync(garbage, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 97 + 13) & 255)));
    await expect(readVideoFrames(garbage, 4)).rejects.toMatchObject({ code: 'video_unreadable' });
    // ffprobe's complaint is one line that names the file once, not "exited with code 1\nPATH: ..."
    const text = join(scratch, 'notes.md');
    writeFileSync(text, '# not a video\n');
    const notVideo = await readVideoFrames(text, 4).catch((err: Error) => err);
    expect((notVideo as Error).message).toMatch(/^ffprobe cannot read .*notes\.md: [^\n]*Invalid data found when processing input$/);
    expect((notVideo as Error).message).not.toMatch(/exited with code|notes\.md: .*notes\.md/);
    const headless = join(scratch, 'headless.webm');
    writeFileSync(headless, readFileSync(fixturePath('video', 'vfr.webm')).subarray(0, 200));
    await expect(readVideoFrames(headless, 4)).rejects.toBeInstanceOf(PreprocessError);
    // Cut mid-stream (moov is at the front): ffmpeg keeps going with errors on stderr, PyAV raises.
    const cut = join(scratch, 'cut.mp4');
    writeFileSync(cut, readFileSync(fixturePath('sample.mp4')).subarray(0, 12000));
    await expect(readVideoFrames(cut, 4)).rejects.toMatchObject({ code: 'video_corrupt' });
    await expect(readVideoFrames(cut, 4)).rejects.toThrow(/Invalid NAL unit size/);
    await expect(readVideoFrames(fixturePath('sample.mp4'), 4, { timeoutSeconds: 0.001 })).rejects.toMatchObject({
      code: 'video_timeout',
    });
    await expect(readVideoFrames(join(scratch, 'missing.mp4'), 4)).rejects.toMatchObject({ code: 'io_error' });
    await expect(readVideoFrames(fixturePath('sample.mp4'), 0)).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('clip to NCTHW against torchvision frame by frame', () => {
  it('sample.mp4, 16 frames: uint8 stage byte-identical, float32 CTHW within 1 ulp', async () => {
    const { recipe } = manifest.clipRecipe;
    const video = await readVideoFrames(fixturePath('sample.mp4'), 16);
    const goldenU8 = readNpy(readFixture(manifest.clipRecipe.u8));
    const [t, h, w] = goldenU8.shape;
    const golden = goldenU8.data as Uint8Array;
    video.frames.forEach((frame, i) => {
      const u8 = resizeAndCropU8({ width: video.width, height: video.height, data: frame }, recipe);
      expect(firstDifference(u8.data, golden.subarray(i * h * w * 3, (i + 1) * h * w * 3))).toBe('identical');
    });
    const levels = readNpy(fixturePath(manifest.clipRecipe.levels)).data as Float32Array;
    const clip = preprocessClip(video, recipe);
    expect(clip.shape).toEqual([3, t, h, w]);
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      for (let i = 0; i < t * h * w; i++) {
        worst = Math.max(worst, ulpDistance(clip.data[c * t * h * w + i], levels[c * 256 + golden[i * 3 + c]]));
      }
    }
    expect(worst).toBeLessThanOrEqual(1);
  });
});

describe('missing ffmpeg', () => {
  const saved = process.env.FFMPEG_PATH;
  afterEach(() => {
    if (saved === undefined) delete process.env.FFMPEG_PATH;
    else process.env.FFMPEG_PATH = saved;
    vi.resetModules();
  });

  it('names the install command', async () => {
    vi.resetModules();
    process.env.FFMPEG_PATH = join(scratch, 'no-ffmpeg-here');
    const fresh = await import('../src/video/ffmpeg.js');
    expect(() => fresh.ffmpegBinaries()).toThrow(/ffmpeg not found .*apt-get install ffmpeg/);
    try {
      fresh.ffmpegBinaries();
    } catch (err) {
      expect((err as PreprocessError).code).toBe('ffmpeg_missing');
    }
  });
});

describe('passthroughTimingArgs', () => {
  it('uses -vsync 0 before ffmpeg 5.1 and -fps_mode passthrough from 5.1', async () => {
    const { passthroughTimingArgs } = await import('../src/video/ffmpeg.js');
    expect(passthroughTimingArgs([4, 4])).toEqual(['-vsync', '0']);
    expect(passthroughTimingArgs([5, 0])).toEqual(['-vsync', '0']);
    expect(passthroughTimingArgs([5, 1])).toEqual(['-fps_mode', 'passthrough']);
    expect(passthroughTimingArgs([7, 0])).toEqual(['-fps_mode', 'passthrough']);
    expect(passthroughTimingArgs(null)).toEqual(['-fps_mode', 'passthrough']);
  });
});

describe('readFramesNpy', () => {
  it('refuses arrays that are not uint8 THWC', async () => {
    const { writeNpy } = await import('../src/index.js');
    const path = join(scratch, 'bad.npy');
    writeNpy(path, new Uint8Array(2 * 3 * 4), [2, 3, 4]);
    expect(() => readFramesNpy(path)).toThrow(/uint8 \[T, H, W, 3\]/);
  });
});
