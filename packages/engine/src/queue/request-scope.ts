// What one request holds while it runs: its place in the queue, and the signal that drops its queued
// items (the caller went away, the deadline passed, a sibling item failed, the engine shuts down).
import { setMaxListeners } from 'node:events';
import type { Ticket } from './admission.js';
import { type DropReason, dropReason } from './dropped.js';

export class RequestScope {
  readonly #controller = new AbortController();

  /** `deadline`: performance.now() ms past which the request is refused and its graphs are stopped. */
  constructor(
    readonly ticket: Ticket,
    readonly deadline = Number.POSITIVE_INFINITY,
  ) {
    // every queued item of the request listens for the drop
    setMaxListeners(0, this.#controller.signal);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get dropped(): DropReason | null {
    return this.#controller.signal.aborted ? dropReason(this.#controller.signal) : null;
  }

  drop(reason: DropReason): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }
}
