// Why a queued item never ran, and the rejection that ends a request whose items were dropped.

export type DropReason = 'disconnect' | 'deadline' | 'failed' | 'shutdown';

/** The reason an item never ran; nobody reads it but a request that is already gone. */
export class Dropped extends Error {
  constructor(readonly reason: DropReason) {
    super(`dropped: ${reason}`);
    this.name = 'Dropped';
  }
}

export function dropReason(signal: AbortSignal): DropReason {
  const r = signal.reason as unknown;
  return r === 'disconnect' || r === 'deadline' || r === 'failed' || r === 'shutdown' ? r : 'failed';
}

/** Rejects once the signal fires for a reason other than a failed item (that one's own error wins). */
export function rejectOnDrop(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    const fire = () => {
      const reason = dropReason(signal);
      if (reason !== 'failed') reject(new Dropped(reason));
    };
    if (signal.aborted) fire();
    else signal.addEventListener('abort', fire, { once: true });
  });
}
