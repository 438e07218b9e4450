export { createServer, type JepaServer, type ServerOptions } from './server.js';
export { ApiError, type ErrorBody, type ErrorType } from './errors.js';
export { PathPolicy, isWithin } from './paths.js';
export { jsonDepth, MAX_JSON_DEPTH } from './json.js';
export { decodeBase64, float32Base64 } from './encoding.js';
export type { ModelCard } from './server-context.js';
// The building blocks, for front ends other than HTTP (@jepa/mcp): the same registry, queue, item path and checks.
export { ModelRegistry, ModelSlot, modelFiles, type SlotOptions } from './server-context.js';
export { Admission, Batcher, ComputeLane, Dropped, computeOnItems, dropReason, rejectOnDrop, type DropReason } from './server-queue.js';
export {
  ItemLoader,
  MAX_WINDOW_FRAMES,
  PlannedItems,
  RequestScope,
  VideoWindows,
  encodeItems,
  encodePlanned,
  parseIds,
  parseSampling,
  planItems,
  refuseSampling,
  type EncodedItem,
  type ItemKind,
  type ParsedItem,
  type PlannedEncoded,
  type PlannedUnit,
  type Sampling,
  type WindowPlace,
} from './server-task.js';
export { ServerMetrics } from './metrics.js';
export { badField, inputFailure, isInputError } from './errors.js';
export { featureMap, encodePng, tensorGrid, type FeatureMap } from './features.js';
