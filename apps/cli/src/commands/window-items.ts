// A video's windows as corpus items: one per window, in order, each taking its clip from the video's
// one decode; the record says where in the video the window lies.
import type { CorpusItem } from '@jepa/corpus';
import type { ModelInput, VideoWindowSource } from '@jepa/input';
import type { WindowOptions } from '@jepa/preprocess';
import { checkInputFile } from '../user-error.js';

export async function windowItems(
  input: ModelInput,
  path: string,
  options: Partial<WindowOptions>,
): Promise<{ items: CorpusItem[]; source: VideoWindowSource }> {
  checkInputFile(path, '--video');
  const source = await input.videoWindows(path, options);
  const items = source.windows.map(
    (w, k): CorpusItem => ({
      label: path,
      still: false,
      batchable: true,
      meta: { window: w.window, start_s: w.startS, end_s: w.endS, frames: w.frames },
      load: () => source.take(k),
    }),
  );
  return { items, source };
}
