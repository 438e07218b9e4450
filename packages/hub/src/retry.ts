// Transient failures (a 5xx, a 429, a reset or refused connection) are tried again after a wait that
// doubles each time; anything else is final at once.
import { setTimeout as sleep } from 'node:timers/promises';

export interface RetryPolicy {
  attempts: number;
  retryDelayMs: number;
  /** Told before each wait: which try failed and why. */
  onRetry?: (attempt: number, reason: string) => void;
}

export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/** A network failure of fetch or of a body's stream (a reset, a refused or timed-out connection, a cut body). */
export function networkCause(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code) && !code.startsWith('ERR_')) return code;
    if (e.message === 'terminated' || e.message === 'fetch failed' || e.message === 'other side closed') e = e.cause ?? new Error('ECONNRESET');
    else e = e.cause;
  }
  return err instanceof TypeError && err.message === 'fetch failed' ? 'fetch failed' : undefined;
}

export class TransientStatus extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

export function backoff(policy: RetryPolicy, attempt: number): Promise<void> {
  return sleep(policy.retryDelayMs * 2 ** (attempt - 1));
}

/** `run` again while it fails transiently, at most `policy.attempts` times in all. */
export async function withRetries<T>(policy: RetryPolicy, run: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(attempt);
    } catch (err) {
      const reason = err instanceof TransientStatus ? err.message : networkCause(err);
      if (reason === undefined || attempt >= policy.attempts) throw err;
      policy.onRetry?.(attempt, reason);
      await backoff(policy, attempt);
    }
  }
}

/**
 * A fetch for @huggingface/hub's calls that retries transient failures and keeps the Hub's
 * X-Error-Code of the last refusal, which its errors do not carry (RepoNotFound, RevisionNotFound, GatedRepo).
 */
export class HubFetch {
  lastErrorCode: string | undefined;

  constructor(private readonly policy: RetryPolicy) {}

  readonly fetch: typeof fetch = (input, init) =>
    withRetries(this.policy, async () => {
      const response = await fetch(input, init);
      if (isTransientStatus(response.status) && response.status !== 501) {
        await response.body?.cancel();
        throw new TransientStatus(response.status);
      }
      if (!response.ok) this.lastErrorCode = response.headers.get('x-error-code') ?? undefined;
      return response;
    }).catch((err: unknown) => {
      // the last transient status is answered as such, for the library to raise its error
      if (err instanceof TransientStatus) return new Response(null, { status: err.status });
      throw err;
    });
}
