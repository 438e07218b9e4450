// Download progress on a TTY stderr, one line per file: bytes, rate and time left; silent elsewhere.
import { displayText } from './display-text.js';

const MIB = 2 ** 20;

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.ceil(seconds % 60)} s`;
}

export class ByteProgress {
  #file = '';
  #start = 0;
  #from = 0;
  #last = 0;

  constructor(private readonly enabled = Boolean(process.stderr.isTTY)) {}

  /** `done` of `total` bytes of `file`; a call for another file ends the previous line. */
  update(file: string, done: number, total: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (file !== this.#file) {
      if (this.#file) process.stderr.write('\n');
      this.#file = file;
      this.#start = now;
      this.#from = done;
      this.#last = 0;
    }
    if (done < total && now - this.#last < 100) return;
    this.#last = now;
    const rate = (done - this.#from) / Math.max(1e-3, (now - this.#start) / 1000);
    const left = done < total ? ` ${duration((total - done) / rate)} left` : '';
    process.stderr.write(
      `\r\u001b[K${displayText(file)} ${(done / MIB).toFixed(1)}/${(total / MIB).toFixed(1)} MiB ${(rate / MIB).toFixed(1)} MiB/s${left}`,
    );
  }

  finish(): void {
    if (this.enabled && this.#file) process.stderr.write('\n');
    this.#file = '';
  }
}
