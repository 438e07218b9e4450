import type { CallOptions } from '@jepa/engine';
import type { FastifyReply } from 'fastify';

/** A request's call into the engine: aborted when its client goes away before the answer is written. */
export function callOf(reply: FastifyReply): CallOptions {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', onClose);
  return { signal: controller.signal };
}
