// The server's Prometheus metrics, on a registry of its own so several servers can share a process.
import type { EngineMetrics, Operation } from '@jepa/engine';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function batchBuckets(maxBatch: number): number[] {
  if (maxBatch <= 64) return Array.from({ length: maxBatch }, (_, i) => i + 1);
  const out: number[] = [];
  for (let b = 1; b < maxBatch; b *= 2) out.push(b);
  return [...out, maxBatch];
}

export class ServerMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'status'>;
  readonly items: Counter<'route'>;
  readonly droppedItems: Counter<'reason'>;
  readonly graphsStopped: Counter;
  readonly textVectors: Counter<'source'>;
  readonly requestSeconds: Histogram<'route'>;
  readonly queueWaitSeconds: Histogram;
  readonly batchSize: Histogram;
  readonly queueDepth: Gauge;
  readonly inFlight: Gauge;
  readonly modelLoadSeconds: Gauge<'model'>;
  readonly modelLoads: Counter<'model'>;
  readonly modelUnloads: Counter<'model' | 'reason'>;
  readonly modelWeightBytes: Gauge<'model'>;

  constructor(maxBatch: number) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'jepa_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['route', 'status'],
      registers,
    });
    this.items = new Counter({ name: 'jepa_items_total', help: 'Input items computed, by route', labelNames: ['route'], registers });
    this.droppedItems = new Counter({
      name: 'jepa_items_dropped_total',
      help: 'Queued items dropped before they ran: the client went away, the deadline passed, or a sibling item failed',
      labelNames: ['reason'],
      registers,
    });
    this.graphsStopped = new Counter({
      name: 'jepa_graphs_stopped_total',
      help: 'Encoder graphs stopped between two nodes because every request in them was past its deadline',
      registers,
    });
    this.textVectors = new Counter({
      name: 'jepa_text_vectors_total',
      help: "Texts' vectors given, by source: the model's text cache, or a run of the text tower",
      labelNames: ['source'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'jepa_request_duration_seconds',
      help: 'Request latency, by route',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.queueWaitSeconds = new Histogram({
      name: 'jepa_queue_wait_seconds',
      help: 'Time an item waited in the queue before its graph ran',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.batchSize = new Histogram({ name: 'jepa_batch_size', help: 'Items per encoder graph', buckets: batchBuckets(maxBatch), registers });
    this.queueDepth = new Gauge({ name: 'jepa_queue_depth', help: 'Items admitted and not yet done (decoding, waiting or running)', registers });
    this.inFlight = new Gauge({ name: 'jepa_requests_in_flight', help: 'Requests being handled', registers });
    this.modelLoadSeconds = new Gauge({
      name: 'jepa_model_load_seconds',
      help: 'Time to load each model (its last load)',
      labelNames: ['model'],
      registers,
    });
    this.modelLoads = new Counter({ name: 'jepa_model_loads_total', help: 'Model loads, by model', labelNames: ['model'], registers });
    this.modelUnloads = new Counter({
      name: 'jepa_model_unloads_total',
      help: 'Model unloads, by model and reason (idle: past its keep-alive; evicted: for memory; request: the unload route; shutdown)',
      labelNames: ['model', 'reason'],
      registers,
    });
    this.modelWeightBytes = new Gauge({
      name: 'jepa_model_weight_bytes',
      help: 'Bytes the weights of each model hold now (0: unloaded)',
      labelNames: ['model'],
      registers,
    });
    collectDefaultMetrics({ register: this.registry });
  }
}

/** The route whose items an engine operation counts. */
const ROUTE_OF: Readonly<Record<Operation, string>> = {
  embed: '/v1/embeddings',
  features: '/v1/features',
  classify: '/v1/classify',
  predict: '/v1/predict',
  rollout: '/v1/worldmodel/rollout',
  plan: '/v1/worldmodel/plan',
};

/** The engine's reports, into the server's Prometheus metrics. */
export function engineMetrics(m: ServerMetrics): EngineMetrics {
  return {
    queueDepth: (items) => m.queueDepth.set(items),
    queueWait: (seconds) => m.queueWaitSeconds.observe(seconds),
    batchSize: (items) => m.batchSize.observe(items),
    droppedItem: (reason) => m.droppedItems.inc({ reason }),
    graphStopped: () => m.graphsStopped.inc(),
    textVectors: (cached, computed) => {
      m.textVectors.inc({ source: 'cache' }, cached);
      m.textVectors.inc({ source: 'text_tower' }, computed);
    },
    itemsDone: (operation, items) => m.items.inc({ route: ROUTE_OF[operation] }, items),
    modelLoaded: (id, seconds, bytes) => {
      m.modelLoadSeconds.set({ model: id }, seconds);
      m.modelLoads.inc({ model: id });
      m.modelWeightBytes.set({ model: id }, bytes);
    },
    modelUnloaded: (id, reason) => {
      m.modelUnloads.inc({ model: id, reason });
      m.modelWeightBytes.set({ model: id }, 0);
    },
  };
}
