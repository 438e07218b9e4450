// The map worker's entry: renders each job it is sent and posts the map (or the error's message) back.
import { parentPort } from 'node:worker_threads';
import { type FeatureMapJob, renderFeatureMap } from './feature-map-render.js';

const port = parentPort;
if (port === null) throw new Error('feature-map-worker.js runs as a worker thread');
port.on('message', ({ id, job }: { id: number; job: FeatureMapJob }) => {
  try {
    const map = renderFeatureMap(job);
    port.postMessage({ id, map });
  } catch (err) {
    port.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
