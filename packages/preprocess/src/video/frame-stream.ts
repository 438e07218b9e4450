// One ffmpeg decode of a video, as a stream of the frames a caller wants, in order, each with its
// absolute index. ffmpeg's showinfo filter prints every output frame's pts (with -copyts, the
// stream's own pts), which ties each rawvideo frame to the packet timeline; with a start time, ffmpeg
// is seeked (-ss) a little before the first wanted frame's keyframe, and seeks that land too late
// (MPEG-TS seeks by bytes) are retried from further back. Reading is pull-based: ffmpeg waits on a
// full pipe while the caller works, so memory stays at what the caller holds.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { PreprocessError } from '../errors.js';
import { ffmpegBinaries, passthroughTimingArgs, toolComplaint } from './ffmpeg.js';
import type { VideoTimeline } from './timeline.js';

export interface StreamFramesOptions {
  /** Indices (presentation order) to deliver; the stream ends after the last of them. */
  wanted: ReadonlySet<number>;
  timeoutSeconds?: number;
}

export interface StreamedFrame {
  index: number;
  /** HWC rgb24. */
  rgb: Uint8Array;
}

/** How the decode ended: every wanted frame delivered, or stopped early by a decode error. */
export interface StreamEnd {
  complete: boolean;
  /** One line, when the decode stopped before the last wanted frame. */
  warning: string | null;
  /** Where ffmpeg was seeked to (-ss, seconds from the stream's start), or null for a decode from the top. */
  seekedTo: number | null;
}

const SHOWINFO = /\[Parsed_showinfo_\d+ @ [^\]]*\] \[info\] n:\s*\d+ pts:\s*(-?\d+)/;
const ERROR = /\[(error|fatal|panic)\]/;

class Overshoot extends Error {}

export async function* streamFrames(path: string, timeline: VideoTimeline, o: StreamFramesOptions): AsyncGenerator<StreamedFrame, StreamEnd> {
  const wanted = [...o.wanted].sort((a, b) => a - b);
  if (wanted.length === 0) return { complete: true, warning: null, seekedTo: null };
  const first = wanted[0]!;
  // the keyframe at or before the first wanted frame, and from there back by `margin` seconds
  const key = timeline.keyframes.filter((k) => k <= first).at(-1) ?? 0;
  for (const margin of first === 0 ? [null] : [0.5, 5, 60, null]) {
    const ss = margin === null ? null : Math.max(0, timeline.times[key]! - timeline.startTime - margin);
    try {
      return yield* decodeFrom(path, timeline, wanted, ss !== null && ss > 0 ? ss : null, o.timeoutSeconds ?? 600);
    } catch (err) {
      if (!(err instanceof Overshoot)) throw err;
    }
  }
  throw new PreprocessError('video_corrupt', `${path}: ffmpeg never reached frame ${first}`);
}

async function* decodeFrom(
  path: string,
  timeline: VideoTimeline,
  wanted: readonly number[],
  ss: number | null,
  timeoutSeconds: number,
): AsyncGenerator<StreamedFrame, StreamEnd> {
  const bins = ffmpegBinaries();
  const args = [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    '-loglevel',
    'level+info',
    '-noautorotate',
    ...(ss !== null ? ['-noaccurate_seek', '-ss', ss.toFixed(6)] : []),
    '-copyts',
    '-i',
    path,
    '-map',
    '0:v:0',
    '-an',
    '-sn',
    '-dn',
    '-vf',
    'showinfo',
    ...passthroughTimingArgs(bins.version),
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ];
  const child = spawn(bins.ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutSeconds * 1000);
  const indexOf = new Map(timeline.pts.map((p, i) => [p, i]));
  const want = new Set(wanted);
  const last = wanted.at(-1)!;
  const frameBytes = timeline.width * timeline.height * 3;

  // showinfo's pts, one per output frame, and the first error line (with how many frames preceded it)
  // frameIndices[j] is output frame (base + j); the consumed front is dropped as the decode goes on
  const frameIndices: number[] = [];
  let base = 0;
  let seen = 0;
  let error: { line: string; afterFrames: number } | null = null;
  let stderrDone = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const lines = createInterface({ input: child.stderr });
  lines.on('line', (line) => {
    const m = SHOWINFO.exec(line);
    if (m) {
      const index = indexOf.get(Number(m[1]));
      frameIndices.push(index ?? -1);
      seen++;
    } else if (ERROR.test(line) && error === null) {
      error = { line, afterFrames: seen };
    }
    notify();
  });
  lines.on('close', () => {
    stderrDone = true;
    notify();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const spawnFailed = new Promise<never>((_, reject) =>
    child.on('error', (e) => reject(new PreprocessError('ffmpeg_missing', `cannot run ffmpeg on ${path}: ${e.message}`, { cause: e }))),
  );
  spawnFailed.catch(() => {});
  const indexAt = async (k: number): Promise<number | undefined> => {
    while (seen <= k && !stderrDone) await new Promise<void>((r) => (wake = r));
    if (k - base > 4096) {
      frameIndices.splice(0, k - base);
      base = k;
    }
    return frameIndices[k - base];
  };
  const stop = (warning: string | null, complete: boolean): StreamEnd => ({ complete, warning, seekedTo: ss });

  let produced = 0;
  let reached = false;
  // one frame's bytes gathered in place: a long decode of unwanted frames allocates nothing per frame
  const frame = new Uint8Array(frameBytes);
  let filled = 0;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      let at = 0;
      while (at < chunk.length) {
        const take = Math.min(frameBytes - filled, chunk.length - at);
        frame.set(chunk.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled < frameBytes) break;
        filled = 0;
        const k = produced++;
        const index = await indexAt(k);
        const err = error as { line: string; afterFrames: number } | null;
        if (err && (reached || ss === null) && err.afterFrames <= k)
          return stop(`${path}: ffmpeg stopped decoding at frame ${index ?? k}: ${toolComplaint(err.line.replace(ERROR, ''), path)}`, false);
        if (index === undefined || index < 0)
          return stop(`${path}: ffmpeg gave a frame that is not in the stream's packet list (output frame ${k})`, false);
        if (!reached) {
          if (index > wanted[0]!) throw new Overshoot();
          if (index >= wanted[0]!) reached = true;
        }
        if (want.has(index)) yield { index, rgb: frame.slice() };
        if (index >= last) return stop(null, true);
      }
    }
    const { code, signal } = await Promise.race([exited, spawnFailed]);
    await indexAt(produced);
    const err = error as { line: string; afterFrames: number } | null;
    if (signal === 'SIGKILL') throw new PreprocessError('video_timeout', `ffmpeg did not finish decoding ${path} within ${timeoutSeconds} s`);
    const why = err
      ? toolComplaint(err.line.replace(ERROR, ''), path)
      : filled
        ? `a partial frame (${filled} of ${frameBytes} bytes)`
        : `exit status ${code}`;
    if (!reached) throw new PreprocessError('video_corrupt', `${path}: the decode ended before frame ${wanted[0]} (${why})`);
    return stop(`${path}: the decode ended after ${produced} frames, before frame ${last} (${why})`, false);
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    lines.close();
  }
}
