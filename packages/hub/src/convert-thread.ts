// A conversion (or a quantization) in a worker thread of its own: the converter's and the quantizer's
// work (reading, casting and writing every tensor) is synchronous CPU time, and a server pulling a
// model keeps answering while it runs.
import { Worker } from 'node:worker_threads';
import { ConvertError, type ConvertErrorCode, type ConvertProgress } from '@jepa/convert';
import type { ErrorKind } from '@jepa/errors';
import type { ConvertJob } from './convert-worker.js';

type Reply = { progress: ConvertProgress } | { done: true } | { error: { code: string | null; kind: ErrorKind; message: string } };

/** Runs `convertCheckpoint` (or `quantizeFile`) on a new worker thread; the converter's refusals come back as ConvertErrors with their code and kind. */
export function convertInThread(job: ConvertJob, onProgress?: (p: ConvertProgress) => void): Promise<void> {
  return new Promise<void>((done, fail) => {
    const worker = new Worker(new URL('./convert-worker.js', import.meta.url), { workerData: job });
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      if (err) fail(err);
      else done();
      void worker.terminate();
    };
    worker.on('message', (reply: Reply) => {
      if ('progress' in reply) onProgress?.(reply.progress);
      else if ('done' in reply) finish();
      else if (reply.error.code !== null)
        finish(new ConvertError(reply.error.code as ConvertErrorCode, reply.error.message, { kind: reply.error.kind }));
      else finish(new Error(reply.error.message));
    });
    worker.on('error', (err) => finish(err));
    worker.on('exit', (code) => finish(new Error(`the conversion thread exited (code ${code}) before it was done`)));
  });
}
