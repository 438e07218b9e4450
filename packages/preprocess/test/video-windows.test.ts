// Windows over long videos (spec windows-v1) against the PyAV reference of fixtures/video-windows:
// the packet timeline equals PyAV's frame.pts · time_base, the planned windows equal the reference's
// for every case, and the frames one decode delivers (seeked when a window starts late) equal PyAV's
// rgb24 of those frames byte for byte. A truncated file gives its complete windows and one warning.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planWindows, probeTimeline, readNpy, streamFrames, type WindowOptions } from '../src/index.js';

const dir = resolve(import.meta.dirname, '../../../fixtures/video-windows');

interface CaseJson {
  case: string;
  options: { frames: number; fps?: number; stride?: number; window_seconds?: number; start?: number; end?: number };
  windows: { window: number; frames: number[]; start_s: number; end_s: number }[];
  npy?: Record<string, string>;
}
interface VideoJson {
  file: string;
  timeline: string;
  frame_count: number;
  decode_error: unknown;
  cases: CaseJson[];
}
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { spec: string; videos: VideoJson[] };
const ptsOf = (v: VideoJson) => JSON.parse(readFileSync(join(dir, v.timeline), 'utf8')) as { pts: number[]; time_base: string };

function options(c: CaseJson): WindowOptions {
  const o = c.options;
  return {
    frames: o.frames,
    ...(o.fps !== undefined ? { fps: o.fps } : {}),
    ...(o.stride !== undefined ? { stride: o.stride } : {}),
    ...(o.window_seconds !== undefined ? { windowSeconds: o.window_seconds } : {}),
    ...(o.start !== undefined ? { start: o.start } : {}),
    ...(o.end !== undefined ? { end: o.end } : {}),
  };
}

describe(`video windows (${manifest.spec}) against PyAV`, () => {
  it('the fixtures are the spec this engine implements', () => expect(manifest.spec).toBe('windows-v1'));

  for (const v of manifest.videos) {
    describe(v.file, () => {
      const reference = ptsOf(v);
      const [num, den] = reference.time_base.split('/').map(Number) as [number, number];
      const times = reference.pts.map((p) => (p * num) / den);

      it('the packet timeline gives PyAV frame times', async () => {
        const t = await probeTimeline(join(dir, v.file));
        // a truncated file keeps packets whose frames no longer decode; the decodable ones lead
        expect(t.pts.slice(0, reference.pts.length)).toEqual(reference.pts);
        if (v.decode_error === null && v.file !== 'truncated.ts') expect(t.pts.length).toBe(reference.pts.length);
        expect(t.times.slice(0, times.length)).toEqual(times);
      });

      for (const c of v.cases) {
        it(`${c.case}: windows, frame indices and times`, () => {
          const got = planWindows(times, options(c));
          expect(got.map((w) => w.window)).toEqual(c.windows.map((w) => w.window));
          expect(got.map((w) => w.frames)).toEqual(c.windows.map((w) => w.frames));
          got.forEach((w, i) => {
            expect(w.startS).toBeCloseTo(c.windows[i]!.start_s, 8);
            expect(w.endS).toBeCloseTo(c.windows[i]!.end_s, 8);
          });
        });

        if (c.npy && v.file !== 'truncated.ts') {
          it(`${c.case}: one decode delivers PyAV's pixels for the saved windows`, async () => {
            const timeline = await probeTimeline(join(dir, v.file));
            const windows = planWindows(timeline.times, options(c));
            const saved = Object.entries(c.npy!).map(([w, file]) => ({
              window: windows.find((x) => x.window === Number(w))!,
              npy: readNpy(join(dir, file)),
            }));
            const wanted = new Set(saved.flatMap((s) => s.window.frames));
            const frames = new Map<number, Uint8Array>();
            const stream = streamFrames(join(dir, v.file), timeline, { wanted });
            let r = await stream.next();
            for (; !r.done; r = await stream.next()) frames.set(r.value.index, r.value.rgb);
            expect(r.value).toMatchObject({ complete: true, warning: null });
            // a window set that starts a second or more in is reached by seeking, not by decoding from the top
            if (c.options.start !== undefined) expect(r.value.seekedTo).toBeGreaterThan(0);
            if (Math.min(...wanted) === 0) expect(r.value.seekedTo).toBeNull();
            for (const s of saved) {
              const bytes = s.npy.data as Uint8Array;
              const per = timeline.width * timeline.height * 3;
              s.window.frames.forEach((f, t) => {
                expect(
                  Buffer.compare(Buffer.from(frames.get(f)!), Buffer.from(bytes.subarray(t * per, (t + 1) * per))),
                  `window ${s.window.window} frame ${f}`,
                ).toBe(0);
              });
            }
          });
        }
      }
    });
  }
});

async function drain(path: string) {
  const timeline = await probeTimeline(path);
  const wanted = new Set(timeline.pts.map((_, i) => i));
  const got: number[] = [];
  const stream = streamFrames(path, timeline, { wanted });
  let r = await stream.next();
  for (; !r.done; r = await stream.next()) got.push(r.value.index);
  return { got, end: r.value, timeline };
}

describe('truncated files', () => {
  it('an MPEG-TS cut at 60 %: the frames PyAV decodes, in order, no crash', async () => {
    const decodable = ptsOf(manifest.videos.find((v) => v.file === 'truncated.ts')!).pts.length;
    const { got, end } = await drain(join(dir, 'truncated.ts'));
    expect(got).toEqual(Array.from({ length: decodable }, (_, i) => i));
    expect(end.complete).toBe(true);
  });

  it('an MP4 cut at 60 %: the frames before the cut, then one warning line', async () => {
    const whole = readFileSync(join(dir, 'cfr25.mp4'));
    const path = join(mkdtempSync(join(tmpdir(), 'jepa-cut-')), 'cut.mp4');
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const { got, end, timeline } = await drain(path);
    expect(end.complete).toBe(false);
    expect(end.warning).toMatch(/cut\.mp4/);
    expect(end.warning).not.toMatch(/\n/);
    expect(got.length).toBeGreaterThan(timeline.pts.length / 2);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i));
  });
});
