// The windows of one sampled video: its decode, and its temp file when it came as base64.
import { rm } from 'node:fs/promises';
import type { ItemTensor, VideoWindowSource } from '@jepa/input';
import type { VideoWindow } from '@jepa/preprocess';
import { Dropped } from '../queue/dropped.js';
import type { ParsedItem } from './parse-item.js';

/** The windows of one sampled video: its decode, and its temp file when it came as base64. */
export class VideoWindows {
  #closed = false;

  constructor(
    readonly item: ParsedItem,
    readonly source: VideoWindowSource,
    readonly temp: string | null,
    readonly show: (line: string) => string,
  ) {}

  get windows(): readonly VideoWindow[] {
    return this.source.windows;
  }

  /** Window k's clip (taken in order), or null when the video ended before it. */
  async take(k: number): Promise<ItemTensor | null> {
    if (this.#closed) throw new Dropped('failed');
    try {
      return await this.source.take(k);
    } catch (err) {
      if (err instanceof Error) err.message = this.show(err.message);
      throw err;
    }
  }

  get warning(): string | null {
    const w = this.source.warning;
    return w === null ? null : this.show(w);
  }

  /** Stops the decode and removes the temp file. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.source.close();
    } finally {
      if (this.temp !== null) await rm(this.temp, { force: true });
    }
  }
}
