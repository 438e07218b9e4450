// What the routes share; server.ts owns it.
import type { Engine } from '@jepa/engine';
import type { ServerMetrics } from '../metrics.js';
import type { WebPage } from '../web-page.js';

export type Phase = 'loading' | 'ready' | 'failed' | 'draining';

export interface ServerState {
  readonly engine: Engine;
  readonly metrics: ServerMetrics;
  readonly maxBodyBytes: number;
  readonly apiKey: string | undefined;
  readonly log: (line: string) => void;
  /** GET /debug/memory (a full GC when node runs with --expose-gc, then process.memoryUsage()): for the leak test only. */
  readonly debug: boolean;
  /** The page at / (dist/web): public, its API calls are not. Null where it was not built. */
  readonly web: WebPage | null;
  /** The folder of `--index DIR` (POST /v1/search and /v1/index), or null. */
  readonly searchIndex: string | null;
  draining: boolean;
  /** One promise per request let in (not /health, not the 503s of a drain), settled when its response closes. */
  readonly open: Set<Promise<void>>;
}

export function phaseOf(state: ServerState): Phase {
  if (state.draining) return 'draining';
  const p = state.engine.phase;
  return p === 'closed' ? 'draining' : p;
}
