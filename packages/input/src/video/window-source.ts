// The windows of one video handed out by index, in order, from its single decode: window k's clip is
// produced once and taken once. Windows the decode never completed (a truncated file) come back as
// null, and `warning` says why.
import type { ItemTensor } from '../item-tensor.js';
import { windowClips, type FramePlanes, type WindowsPlan } from './video-windows.js';

export class VideoWindowSource {
  readonly plan: WindowsPlan;
  #warning: string | null = null;
  readonly #clips: AsyncGenerator<{ window: unknown; item: ItemTensor }, { warning: string | null }>;
  readonly #ready = new Map<number, ItemTensor>();
  #produced = 0;
  #ended = false;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string, plan: WindowsPlan, planes: FramePlanes, timeoutSeconds?: number) {
    this.plan = plan;
    this.#clips = windowClips(path, plan, planes, timeoutSeconds);
  }

  get windows() {
    return this.plan.windows;
  }

  /** One line when the decode stopped before every window was complete. */
  get warning(): string | null {
    return this.#warning;
  }

  /** Window k's clip [3, N, H, W], or null when the video ended before it. */
  take(k: number): Promise<ItemTensor | null> {
    const run = this.#queue.then(() => this.#take(k));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #take(k: number): Promise<ItemTensor | null> {
    while (!this.#ready.has(k) && !this.#ended && this.#produced <= k) {
      const r = await this.#clips.next();
      if (r.done) {
        this.#ended = true;
        this.#warning = r.value.warning;
      } else this.#ready.set(this.#produced++, r.value.item);
    }
    const item = this.#ready.get(k) ?? null;
    this.#ready.delete(k);
    return item;
  }

  /** Stops the decode (ffmpeg is killed) when the caller is done early. */
  async close(): Promise<void> {
    await this.#clips.return({ warning: this.#warning });
  }
}
