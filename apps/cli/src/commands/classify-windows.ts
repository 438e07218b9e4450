// `jepa classify --video LONG --fps/--frames/--window-seconds/--stride/--start/--end`: the classifier
// over every window of a long video, each window's result printed as it finishes — a compact top-1
// timeline (--timeline), every window's top-k, or JSON lines.
import type { EncoderContext, HeadContext } from '@jepa/graph';
import type { ItemTensor, ModelInput } from '@jepa/input';
import type { VideoWindow, WindowOptions } from '@jepa/preprocess';
import { displayLines, say } from '../display-text.js';
import { UserError } from '../user-error.js';

export interface WindowClassifyOptions {
  topk: number;
  json: boolean;
  timeline: boolean;
  /** Windows per encoder call. */
  batch: number;
}

const time = (s: number) => {
  const m = Math.floor(s / 60);
  return `${m}:${(s - 60 * m).toFixed(2).padStart(5, '0')}`;
};

export async function classifyWindows(
  input: ModelInput,
  path: string,
  windows: Partial<WindowOptions>,
  encoder: EncoderContext,
  head: HeadContext,
  o: WindowClassifyOptions,
): Promise<void> {
  const source = await input.videoWindows(path, windows);
  const out = (text: string) => process.stdout.write(text);
  if (o.timeline && !o.json) out(displayLines(['window  start     end       top-1 (score)']));
  let done = 0;
  try {
    for (let k = 0; k < source.windows.length; k += o.batch) {
      const clips: { window: VideoWindow; clip: ItemTensor }[] = [];
      for (let j = k; j < Math.min(k + o.batch, source.windows.length); j++) {
        const clip = await source.take(j);
        if (clip === null) break;
        clips.push({ window: source.windows[j]!, clip });
      }
      if (clips.length === 0) break;
      const shape = clips[0]!.clip.shape;
      const size = clips[0]!.clip.data.length;
      const data = new Float32Array(clips.length * size);
      for (const [i, c] of clips.entries()) data.set(c.clip.data, i * size);
      const results = await head.classify(await encoder.encode({ data, shape: [clips.length, ...shape] }), o.topk);
      results.forEach((r, i) => {
        const w = clips[i]!.window;
        const topk = r.top.map((c) => ({ label: c.label, index: c.index, score: c.prob }));
        if (o.json) out(`${JSON.stringify({ input: path, window: w.window, start_s: w.startS, end_s: w.endS, frames: w.frames, topk })}\n`);
        else if (o.timeline) {
          const best = topk[0]!;
          out(displayLines([`${String(w.window).padStart(6)}  ${time(w.startS)}  ${time(w.endS)}  ${best.label} (${best.score.toFixed(3)})`]));
        } else
          out(
            displayLines([
              `${path} window ${w.window} [${time(w.startS)} – ${time(w.endS)}]`,
              ...topk.map((c, rank) => `  ${rank + 1}. ${c.label}  ${(100 * c.score).toFixed(2)}%  (class ${c.index})`),
            ]),
          );
      });
      done += clips.length;
      if (clips.length < Math.min(o.batch, source.windows.length - k)) break;
    }
    if (source.warning) say(`warning: ${source.warning}`);
    if (done === 0) throw new UserError(`${path}: no window could be decoded`, 3);
    say(`${done} of ${source.windows.length} windows classified`);
  } finally {
    await source.close();
  }
}
