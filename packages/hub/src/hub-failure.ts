// A failed call to the Hub as one line that says what to do: gated, token refused, not found,
// the server down or unreachable (pointing at HF_HUB_OFFLINE=1 when the cache has the model).
import { HubApiError } from '@huggingface/hub';
import { HubError } from './errors.js';
import type { HubReference } from './reference.js';
import { networkCause, TransientStatus } from './retry.js';

/** A refusal of a download request (the library's calls raise HubApiError instead). */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string | undefined,
    readonly url: string,
  ) {
    super(`HTTP ${status} for ${url}`);
  }
}

export interface FailureContext {
  ref: HubReference;
  endpoint: string;
  hasToken: boolean;
  /** The Hub's X-Error-Code of the refusal, where one came. */
  errorCode?: string;
  /** Whether the cache already holds this revision (then HF_HUB_OFFLINE=1 would do). */
  cached: boolean;
  attempts: number;
}

function statusOf(err: unknown): { status: number; code?: string } | undefined {
  if (err instanceof HttpRefusal) return { status: err.status, code: err.errorCode };
  if (err instanceof HubApiError) return { status: err.statusCode };
  if (err instanceof TransientStatus) return { status: err.status };
  return undefined;
}

export function hubFailure(err: unknown, ctx: FailureContext): unknown {
  if (err instanceof HubError) return err;
  const { ref, endpoint } = ctx;
  const page = `${endpoint}/${ref.repo}`;
  const name = `hf:${ref.repo}`;
  if (err instanceof TypeError && /access token must start with/.test(err.message))
    return new HubError('HUB_BAD_TOKEN', 'HF_TOKEN is not a Hugging Face token (they start with hf_)', { cause: err });
  const refused = statusOf(err);
  if (refused) {
    const code = refused.code ?? ctx.errorCode;
    const { status } = refused;
    if (code === 'RevisionNotFound')
      return new HubError('HUB_REVISION_NOT_FOUND', `${name} has no revision '${ref.revision}' (a branch, tag or commit of ${page})`, { cause: err });
    if (code === 'EntryNotFound')
      return new HubError('HUB_FILE_NOT_FOUND', `${name}@${ref.revision}: a listed file is missing on ${endpoint}`, { cause: err });
    if (status === 404 || code === 'RepoNotFound')
      return new HubError(
        'HUB_REPO_NOT_FOUND',
        `${name}: no such model repository at ${endpoint}${ctx.hasToken ? '' : ' (a private one needs HF_TOKEN)'}`,
        { cause: err },
      );
    if (status === 401 && ctx.hasToken && code !== 'GatedRepo')
      return new HubError(
        'HUB_BAD_TOKEN',
        `HF_TOKEN was refused by ${endpoint} (invalid or expired): make a new one at ${endpoint}/settings/tokens`,
        {
          cause: err,
        },
      );
    if (status === 401)
      return new HubError('HUB_GATED', `${name} is gated: accept its terms at ${page}, then set HF_TOKEN (or run huggingface-cli login)`, {
        cause: err,
      });
    if (status === 403)
      return new HubError('HUB_FORBIDDEN', `HF_TOKEN has no access to ${name}: ask for it at ${page} (or use a token of an account that has it)`, {
        cause: err,
      });
    if (status >= 500 || status === 429)
      return new HubError('HUB_SERVER', `${endpoint} answered ${status} for ${name} after ${ctx.attempts} tries; try again later`, { cause: err });
    return new HubError('HUB_SERVER', `${endpoint} answered ${status} for ${name}`, { cause: err });
  }
  const cause = networkCause(err);
  if (cause !== undefined) {
    const offline = ctx.cached ? `; the cache has ${name}@${ref.revision}: set HF_HUB_OFFLINE=1 to use it` : '';
    return new HubError('HUB_UNREACHABLE', `cannot reach ${endpoint} (${cause})${offline}`, { cause: err });
  }
  return err;
}
