// The conversion thread's entry: converts the one checkpoint it is given (or quantizes the one f32
// GGUF), posting each tensor's progress, then the end (or the refusal's code, kind and message, so the
// caller rethrows it as it was).
import { parentPort, workerData } from 'node:worker_threads';
import { convertCheckpoint, type WeightDtype } from '@jepa/convert';
import { JepaError } from '@jepa/errors';
import { quantizeFile } from '@jepa/quantize';
import type { Target } from '@jepa/quantize/targets';

export type ConvertJob =
  | { kind: 'convert'; checkpoint: string; out: string; type: WeightDtype }
  | { kind: 'quantize'; gguf: string; out: string; type: Target };

const port = parentPort;
if (port === null) throw new Error('convert-worker.js runs as a worker thread');
const job = workerData as ConvertJob;
const work =
  job.kind === 'convert'
    ? convertCheckpoint(job.checkpoint, job.out, { dtype: job.type, onProgress: (progress) => port.postMessage({ progress }) })
    : quantizeFile(job.gguf, job.out, job.type);
work.then(
  () => port.postMessage({ done: true }),
  (err: unknown) =>
    port.postMessage({
      error:
        err instanceof JepaError
          ? { code: err.code, kind: err.kind, message: err.message }
          : { code: null, kind: 'internal', message: err instanceof Error ? err.message : String(err) },
    }),
);
