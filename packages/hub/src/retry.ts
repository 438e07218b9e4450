// Transient failures (a 5xx, a 429, a reset connection, a cut body) are tried again after a wait that
// doubles each time; anything else, a refused connection or an unknown host included, is final at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { HubError } from './errors.js';
import { USER_AGENT } from './user-agent.js';

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

/** No route to the Hub at all (refused, no such host, no network): waiting would not help, so not retried. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN']);

/** Why `err` is worth another try, or undefined when it is final. */
export function transientCause(err: unknown): string | undefined {
  if (err instanceof TransientStatus) return err.message;
  // a refusal already put in words (a full disk among them) is final, whatever its cause
  if (err instanceof HubError) return undefined;
  const cause = networkCause(err);
  return cause === undefined || UNREACHABLE.has(cause) ? undefined : cause;
}

export class TransientStatus extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/**
 * The wait before try `attempt + 1`. A first network failure is tried again at once: it is most often a
 * kept-alive connection the server had closed, and a new one is all it takes.
 */
export function backoff(policy: RetryPolicy, attempt: number, err?: unknown): Promise<void> {
  if (attempt === 1 && err !== undefined && !(err instanceof TransientStatus)) return Promise.resolve();
  return sleep(policy.retryDelayMs * 2 ** (attempt - 1));
}

/** `run` again while it fails transiently, at most `policy.attempts` times in all. */
export async function withRetries<T>(policy: RetryPolicy, run: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(attempt);
    } catch (err) {
      const reason = transientCause(err);
      if (reason === undefined || attempt >= policy.attempts) throw err;
      policy.onRetry?.(attempt, reason);
      await backoff(policy, attempt, err);
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

  /** fetch with retries, jepa's User-Agent where the caller set none. */
  readonly fetch: typeof fetch = (input, init) =>
    withRetries(this.policy, async () => {
      const response = await fetch(input, withUserAgent(input, init));
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

function withUserAgent(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): RequestInit {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has('user-agent')) headers.set('user-agent', USER_AGENT);
  return { ...init, headers };
}
