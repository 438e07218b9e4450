import { type CallOptions, badField, parseDuration } from '@jepa/engine';
import type { FastifyReply } from 'fastify';

/**
 * A request's call into the engine: aborted when its client goes away before the answer is written,
 * and due within its `timeout` (seconds, or a duration such as "2.5s" or "500ms"; in the JSON body or
 * the query string), which may shorten the server's --request-timeout but not lengthen it.
 */
export function callOf(reply: FastifyReply): CallOptions {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', onClose);
  const asked = requestTimeout(reply);
  return { signal: controller.signal, ...(asked === undefined ? {} : { timeoutMs: asked }) };
}

function requestTimeout(reply: FastifyReply): number | undefined {
  const body = reply.request.body;
  const query = reply.request.query as Record<string, unknown> | undefined;
  const fromBody =
    typeof body === 'object' && body !== null && !Array.isArray(body) && !Buffer.isBuffer(body)
      ? (body as Record<string, unknown>).timeout
      : undefined;
  const value = fromBody ?? query?.timeout;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' && typeof value !== 'string') throw badField('timeout', 'must be seconds (a number) or a duration such as "2.5s"');
  let ms: number;
  try {
    ms = parseDuration(value, 'timeout');
  } catch (err) {
    throw badField('timeout', (err as Error).message.replace(/^timeout: /, ''));
  }
  if (!(ms > 0) || !Number.isFinite(ms)) throw badField('timeout', 'must be more than 0 and finite');
  return ms;
}
