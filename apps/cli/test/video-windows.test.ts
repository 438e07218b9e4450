// jepa embed / classify over long videos (spec windows-v1) on the PyAV fixtures: window embeddings
// equal `jepa embed --frames-npy` of PyAV's frames bit for bit, records carry the reference's frame
// indices and times, --start seeks to the same pixels, .npy output comes with a window index, a
// truncated file keeps its complete windows with one warning, and the memory of a 10-minute file stays
// within 10 % of a 1-minute one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { readNpy } from '@jepa/preprocess';
import { DEMO_MODEL, runCli, VIDEO_WINDOWS } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const fixtures = VIDEO_WINDOWS;
const demo = DEMO_MODEL;
const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-windows-'));
const headModel = forgeModel('vjepa2', { seed: 3, path: join(tmp, 'head.gguf') }).path;

function jepa(args: string[], env: Record<string, string> = {}) {
  const r = runCli([...args, '-t', '2'], { env: { JEPA_DEVICE: 'cpu', ...env }, maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown> & { embedding: number[]; frames: number[]; window: number; start_s: number; end_s: number });

interface CaseJson {
  case: string;
  options: Record<string, number>;
  windows: { window: number; frames: number[]; start_s: number; end_s: number }[];
  npy?: Record<string, string>;
}
const manifest = JSON.parse(readFileSync(join(fixtures, 'manifest.json'), 'utf8')) as { videos: { file: string; cases: CaseJson[] }[] };
const caseOf = (file: string, name: string) => manifest.videos.find((v) => v.file === file)!.cases.find((c) => c.case === name)!;
const flagsOf = (c: CaseJson) => Object.entries(c.options).flatMap(([k, v]) => [`--${k === 'window_seconds' ? 'window-seconds' : k}`, String(v)]);

describe('jepa embed over windows', () => {
  for (const [file, name] of [
    ['cfr25.mp4', 'fps5_frames4'],
    ['ntsc.mp4', 'start_end'],
    ['vfr.mkv', 'fps12_frames8_stride4'],
    ['odd.mp4', 'win2s_stride1s'],
  ] as const) {
    it(`${file} ${name}: records as the reference, embeddings equal --frames-npy of PyAV's frames`, () => {
      const c = caseOf(file, name);
      const r = jepa(['embed', '-m', demo, '--video', join(fixtures, file), ...flagsOf(c)]);
      expect(r.code, r.err).toBe(0);
      const got = lines(r.out);
      expect(got.map((g) => g.frames)).toEqual(c.windows.map((w) => w.frames));
      got.forEach((g, i) => {
        expect(g.window).toBe(c.windows[i]!.window);
        expect(g.start_s).toBeCloseTo(c.windows[i]!.start_s, 8);
        expect(g.end_s).toBeCloseTo(c.windows[i]!.end_s, 8);
      });
      for (const [w, npy] of Object.entries(c.npy ?? {})) {
        const alone = jepa(['embed', '-m', demo, '--frames-npy', join(fixtures, npy)]);
        expect(alone.code, alone.err).toBe(0);
        expect(got.find((g) => g.window === Number(w))!.embedding).toEqual(lines(alone.out)[0]!.embedding);
      }
    });
  }

  it('--start seeks: a window that starts at 1.6 s equals the same frames of a run from the top', () => {
    const video = join(fixtures, 'cfr25.mp4');
    const whole = lines(jepa(['embed', '-m', demo, '--video', video, '--fps', '5', '--frames', '4']).out);
    const late = lines(jepa(['embed', '-m', demo, '--video', video, '--fps', '5', '--frames', '4', '--start', '1.6', '--end', '3.2']).out);
    expect(late.map((l) => l.frames)).toEqual([
      [40, 45, 50, 55],
      [60, 65, 70, 75],
    ]);
    for (const l of late) expect(l.embedding).toEqual(whole.find((w) => w.frames[0] === l.frames[0])!.embedding);
  });

  it('.npy output: [W, D] rows and an index line per window', () => {
    const out = join(tmp, 'windows.npy');
    const r = jepa(['embed', '-m', demo, '--video', join(fixtures, 'cfr25.mp4'), '--frames', '16', '--stride', '8', '-o', out]);
    expect(r.code, r.err).toBe(0);
    const rows = readNpy(out);
    const index = readFileSync(`${out}.index.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { window: number; row: number; frames: number[] });
    expect(rows.shape).toEqual([index.length, 192]);
    expect(index.map((e) => e.row)).toEqual(index.map((_, i) => i));
    expect(index[1]!.frames[0]).toBe(8);
    expect(index.length).toBe(Math.floor((150 - 16) / 8) + 1);
  });

  it('no window options: one clip sampled over the whole file, as before', () => {
    const r = jepa(['embed', '-m', demo, '--video', join(fixtures, 'cfr25.mp4')]);
    const [only] = lines(r.out);
    expect(lines(r.out)).toHaveLength(1);
    expect(only!.window).toBeUndefined();
  });

  it('a truncated MP4: the complete windows, then one warning line, exit 0', () => {
    const whole = readFileSync(join(fixtures, 'cfr25.mp4'));
    const cut = join(tmp, 'cut.mp4');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const r = jepa(['embed', '-m', demo, '--video', cut, '--frames', '8']);
    expect(r.code, r.err).toBe(0);
    const got = lines(r.out);
    expect(got.length).toBeGreaterThan(2);
    expect(r.err.split('\n').filter((l) => l.includes('warning:'))).toHaveLength(1);
  });

  it('bad window options are refused in one line', () => {
    for (const [args, message] of [
      [['--fps', '0'], /--fps/],
      [['--start', '9'], /no frame has a presentation time/],
      [['--start', '3', '--end', '2'], /--end .* after --start/],
      [['--window-seconds', '2', '--stride', '-1'], /--stride/],
    ] as const) {
      const r = jepa(['embed', '-m', demo, '--video', join(fixtures, 'cfr25.mp4'), ...args]);
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(message);
      expect(
        r.err
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('jepa:')),
      ).toHaveLength(1);
    }
  });
});

describe('jepa classify over windows', () => {
  it('--timeline: one line per window with its top-1 class; --json: one record per window', () => {
    const video = join(fixtures, 'cfr25.mp4');
    const t = jepa(['classify', '-m', headModel, '--video', video, '--fps', '2', '--timeline']);
    expect(t.code, t.err).toBe(0);
    const rows = t.out.trim().split('\n');
    expect(rows[0]).toMatch(/window\s+start\s+end\s+top-1/);
    expect(rows).toHaveLength(1 + 3);
    const j = jepa(['classify', '-m', headModel, '--video', video, '--fps', '2', '--json', '-k', '2']);
    const records = j.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { window: number; topk: { label: string; score: number }[] });
    expect(records.map((r) => r.window)).toEqual([0, 1, 2]);
    for (const r of records) expect(r.topk).toHaveLength(2);
    expect(rows[1]).toContain(records[0]!.topk[0]!.label);
  });
});

describe('memory over the length of a video', () => {
  it('a 10-minute file peaks within 10 % of a 1-minute one', () => {
    const make = (seconds: number) => {
      const path = join(tmp, `long-${seconds}.mp4`);
      const r = spawnSync('ffmpeg', [
        '-v',
        'error',
        '-y',
        '-f',
        'lavfi',
        '-i',
        `testsrc2=size=32x32:rate=25:duration=${seconds}`,
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-g',
        '50',
        '-pix_fmt',
        'yuv420p',
        path,
      ]);
      expect(r.status).toBe(0);
      return path;
    };
    const peak = (video: string) => {
      const report = join(tmp, `rss-${process.hrtime.bigint()}.txt`);
      const hook = join(tmp, 'rss-hook.cjs');
      // the collector runs every 100 ms, so the peak is memory held, not garbage a lazy collector left
      writeFileSync(
        hook,
        `setInterval(() => global.gc(), 100).unref();\nprocess.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, String(process.resourceUsage().maxRSS)));\n`,
      );
      const r = jepa(['embed', '-m', demo, '--video', video, '--fps', '4', '--frames', '8', '-o', join(tmp, `rss-${process.hrtime.bigint()}.npy`)], {
        NODE_OPTIONS: `--expose-gc --require ${hook}`,
      });
      expect(r.code, r.err).toBe(0);
      return Number(readFileSync(report, 'utf8')) / 1024;
    };
    const short = peak(make(60));
    const long = peak(make(600));
    console.log(
      `peak RSS (collector every 100 ms): 1-minute ${short.toFixed(0)} MiB, 10-minute ${long.toFixed(0)} MiB (${((100 * long) / short - 100).toFixed(1)} %)`,
    );
    expect(long).toBeLessThanOrEqual(short * 1.1);
  }, 300_000);
});
