// Windows over a long video (spec "windows-v1", docs/video-windows.md), planned from the timeline of
// presentation times before any frame is decoded:
//   range    the frames with start <= t < end;
//   samples  every frame of the range, or at --fps F the frame on screen at t_first + k/F;
//   windows  N consecutive samples every `stride` samples (frame mode), or, with --window-seconds S,
//            N samples spread (linspace) over each [T0 + w·σ, T0 + w·σ + S) that the video covers.
// A range with fewer samples than one window gives one window, sampled as a whole clip is today.
import { PreprocessError } from '../errors.js';
import { sampleIndices } from './sample.js';

const EPS = 1e-9;

export interface WindowOptions {
  /** Frames per window (N). */
  frames: number;
  /** Sample at this many frames per second of presentation time (default: every frame). */
  fps?: number;
  /** Frame mode: samples between window starts (default N). Seconds mode: seconds (default windowSeconds). */
  stride?: number;
  /** Seconds mode: each window spans this many seconds. */
  windowSeconds?: number;
  /** Presentation-time bounds in seconds: start <= t < end. */
  start?: number;
  end?: number;
}

export interface VideoWindow {
  window: number;
  /** Absolute decoded-frame indices, in window order (repeats possible). */
  frames: number[];
  /** Presentation times of its first and last frame. */
  startS: number;
  endS: number;
}

interface Sample {
  frame: number;
  time: number;
}

function bad(message: string): never {
  throw new PreprocessError('invalid_argument', message);
}

export function checkWindowOptions(o: WindowOptions): void {
  if (!(Number.isSafeInteger(o.frames) && o.frames >= 1)) bad(`frames per window must be a whole number >= 1, got ${o.frames}`);
  if (o.fps !== undefined && !(Number.isFinite(o.fps) && o.fps > 0)) bad(`--fps must be a number > 0, got ${o.fps}`);
  if (o.windowSeconds !== undefined && !(Number.isFinite(o.windowSeconds) && o.windowSeconds > 0))
    bad(`--window-seconds must be a number > 0, got ${o.windowSeconds}`);
  if (o.stride !== undefined) {
    const seconds = o.windowSeconds !== undefined;
    const ok = seconds ? Number.isFinite(o.stride) && o.stride > 0 : Number.isSafeInteger(o.stride) && o.stride >= 1;
    if (!ok) bad(`--stride must be ${seconds ? 'a number of seconds > 0' : 'a whole number of samples >= 1'}, got ${o.stride}`);
  }
  for (const k of ['start', 'end'] as const) if (o[k] !== undefined && !Number.isFinite(o[k])) bad(`--${k} must be a number of seconds, got ${o[k]}`);
  if (o.start !== undefined && o.end !== undefined && !(o.end > o.start)) bad(`--end (${o.end}) must be after --start (${o.start})`);
}

/** The frames of `[start, end)`, then the sample sequence. `times` is every frame's presentation time, in order. */
function samplesOf(times: readonly number[], o: WindowOptions): Sample[] {
  const range: number[] = [];
  for (let i = 0; i < times.length; i++) {
    const t = times[i]!;
    if ((o.start === undefined || t >= o.start) && (o.end === undefined || t < o.end)) range.push(i);
  }
  if (range.length === 0) bad(`no frame has a presentation time in [${o.start ?? '-inf'}, ${o.end ?? 'inf'}) s`);
  if (o.fps === undefined) return range.map((frame) => ({ frame, time: times[frame]! }));
  const first = times[range[0]!]!;
  const last = times[range.at(-1)!]!;
  const out: Sample[] = [];
  let j = 0;
  for (let k = 0; ; k++) {
    const tau = first + k / o.fps;
    if (tau > last + EPS) break;
    while (j + 1 < range.length && times[range[j + 1]!]! <= tau + EPS) j++;
    out.push({ frame: range[j]!, time: tau });
  }
  return out;
}

function spread(samples: readonly Sample[], n: number): Sample[] {
  return sampleIndices(samples.length, n).map((i) => samples[i]!);
}

function record(window: number, picked: readonly Sample[], times: readonly number[]): VideoWindow {
  const frames = picked.map((s) => s.frame);
  return { window, frames, startS: times[frames[0]!]!, endS: times[frames.at(-1)!]! };
}

export function planWindows(times: readonly number[], o: WindowOptions): VideoWindow[] {
  checkWindowOptions(o);
  const samples = samplesOf(times, o);
  const N = o.frames;
  const out: VideoWindow[] = [];
  if (o.windowSeconds === undefined) {
    const stride = o.stride ?? N;
    if (samples.length < N) return [record(0, spread(samples, N), times)];
    for (let w = 0; w * stride + N <= samples.length; w++) out.push(record(w, samples.slice(w * stride, w * stride + N), times));
    return out;
  }
  const S = o.windowSeconds;
  const sigma = o.stride ?? S;
  const t0 = samples[0]!.time;
  const lastTime = samples.at(-1)!.time;
  let d = 0;
  if (o.fps !== undefined) d = 1 / o.fps;
  else if (samples.length > 1) d = lastTime - samples.at(-2)!.time;
  const tEnd = o.end ?? lastTime + d;
  let at = 0;
  for (let w = 0; ; w++) {
    const a = t0 + w * sigma;
    const b = a + S;
    if (b > tEnd + EPS) break;
    while (at < samples.length && samples[at]!.time < a - EPS) at++;
    let stop = at;
    while (stop < samples.length && samples[stop]!.time < b - EPS) stop++;
    if (stop > at) out.push(record(w, spread(samples.slice(at, stop), N), times));
  }
  if (out.length === 0) return [record(0, spread(samples, N), times)];
  return out;
}

/** For each frame a window needs: the last window (in plan order) that uses it, so it can be freed after. */
export function lastUse(windows: readonly VideoWindow[]): Map<number, number> {
  const last = new Map<number, number>();
  windows.forEach((w, k) => {
    for (const f of w.frames) last.set(f, k);
  });
  return last;
}
