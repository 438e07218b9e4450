// A long video as a sequence of model-ready clips: the windows planned from the packet timeline,
// one ffmpeg decode for all of them, each needed frame preprocessed once and kept only until the last
// window that uses it has been handed out. Memory: one window's frames plus the decode-ahead.
import {
  MAX_DECODE_PIXELS,
  PreprocessError,
  lastUse,
  planWindows,
  probeTimeline,
  streamFrames,
  type VideoTimeline,
  type VideoWindow,
  type WindowOptions,
} from '@jepa/preprocess';
import type { ItemTensor } from '../item-tensor.js';

export interface WindowedClip {
  window: VideoWindow;
  /** [3, N, H, W] */
  item: ItemTensor;
}

export interface WindowsPlan {
  timeline: VideoTimeline;
  windows: VideoWindow[];
}

export async function planVideoWindows(path: string, options: WindowOptions, timeoutSeconds?: number): Promise<WindowsPlan> {
  const timeline = await probeTimeline(path, timeoutSeconds);
  if (timeline.width * timeline.height > MAX_DECODE_PIXELS)
    throw new PreprocessError(
      'image_too_large',
      `${path}: ${timeline.width}x${timeline.height} frames exceed the decode bound of ${MAX_DECODE_PIXELS} pixels`,
    );
  return { timeline, windows: planWindows(timeline.times, options) };
}

/** Turns one decoded frame (HWC rgb24) into its [3, H, W] planes, written into `reuse` when it is given (a freed frame's). */
export type FramePlanes = (
  rgb: Uint8Array,
  width: number,
  height: number,
  reuse?: Float32Array,
) => Promise<{ data: Float32Array; width: number; height: number }>;

/**
 * The windows of `plan` in order, then the decode's end: `warning` is one line when the decode stopped
 * early (a truncated or corrupt file), after the windows it could complete.
 */
export async function* windowClips(
  path: string,
  plan: WindowsPlan,
  planes: FramePlanes,
  timeoutSeconds?: number,
): AsyncGenerator<WindowedClip, { warning: string | null }> {
  const { timeline, windows } = plan;
  const wanted = new Set(windows.flatMap((w) => w.frames));
  const freeAfter = lastUse(windows);
  const ready = new Map<number, { data: Float32Array; width: number; height: number }>();
  const spare: Float32Array[] = [];
  let next = 0;
  const stream = streamFrames(path, timeline, { wanted, ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) });
  let end: { warning: string | null } = { warning: null };
  try {
    for (;;) {
      const r = await stream.next();
      if (r.done) {
        end = { warning: r.value.warning };
        break;
      }
      ready.set(r.value.index, await planes(r.value.rgb, timeline.width, timeline.height, spare.pop()));
      while (next < windows.length && windows[next]!.frames.every((f) => ready.has(f))) {
        const w = windows[next]!;
        yield { window: w, item: assemble(w.frames.map((f) => ready.get(f)!)) };
        for (const f of new Set(w.frames))
          if (freeAfter.get(f) === next) {
            // the clip holds copies: the frame's planes serve the next decoded frame
            spare.push(ready.get(f)!.data);
            ready.delete(f);
          }
        next++;
      }
    }
  } finally {
    // stopped early (the caller returned): end the decode, which kills ffmpeg
    await stream.return({ complete: false, warning: null, seekedTo: null });
  }
  if (next < windows.length && end.warning === null)
    end = { warning: `${path}: the decode ended with ${windows.length - next} of ${windows.length} windows incomplete` };
  return end;
}

function assemble(frames: readonly { data: Float32Array; width: number; height: number }[]): ItemTensor {
  const { width, height } = frames[0]!;
  const plane = width * height;
  const T = frames.length;
  const data = new Float32Array(3 * T * plane);
  frames.forEach((f, t) => {
    for (let c = 0; c < 3; c++) data.set(f.data.subarray(c * plane, (c + 1) * plane), (c * T + t) * plane);
  });
  return { data, shape: [3, T, height, width] };
}
