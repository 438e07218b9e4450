// What the tools' computations share: a call's options from the client's abort, a class score as the
// tools answer it, and the warnings of a sampled video's answer.
import type { CallOptions } from '@jepa/engine';

export type ModelArg = { model?: string | undefined };

/** The warnings of a sampled video's answer: there only when the decode ended early. */
export type Warnings = { warnings?: string[] };

export function callOf(signal: AbortSignal | undefined): CallOptions {
  return { signal };
}

export function score(c: { label: string; index: number; prob: number; logit: number }) {
  return { label: c.label, index: c.index, prob: c.prob, logit: c.logit };
}

export function withWarnings(warnings: string[]): Warnings {
  return warnings.length > 0 ? { warnings } : {};
}
