// A one-line progress bar on a TTY stderr; silent elsewhere (logs, pipes).
import { displayText } from './display-text.js';

export class Progress {
  readonly #tty = Boolean(process.stderr.isTTY);
  readonly #start = performance.now();
  #done = 0;

  readonly #label: string;

  constructor(
    private readonly total: number,
    label: string,
  ) {
    this.#label = displayText(label);
  }

  tick(n = 1): void {
    this.#done += n;
    if (!this.#tty) return;
    const width = 28;
    const filled = Math.round((width * this.#done) / Math.max(1, this.total));
    const rate = this.#done / ((performance.now() - this.#start) / 1000);
    process.stderr.write(`\r${this.#label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.#done}/${this.total} ${rate.toFixed(1)}/s`);
  }

  finish(): { seconds: number; perSecond: number } {
    if (this.#tty) process.stderr.write('\n');
    const seconds = (performance.now() - this.#start) / 1000;
    return { seconds, perSecond: this.#done / seconds };
  }
}
