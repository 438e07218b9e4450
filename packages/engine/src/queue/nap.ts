// A batcher's wait for more work: until a deadline, or sooner when work arrives or leaves.

export class Nap {
  #wake: (() => void) | null = null;

  /** Resolves at `until` (a performance.now() time), or at the next wake(). */
  until(until: number): Promise<void> {
    return new Promise<void>((done) => {
      const timer = setTimeout(finish, Math.max(0, until - performance.now()));
      function finish() {
        clearTimeout(timer);
        done();
      }
      this.#wake = () => {
        this.#wake = null;
        finish();
      };
    });
  }

  /** Ends the wait in progress, if any. */
  wake(): void {
    this.#wake?.();
  }
}
