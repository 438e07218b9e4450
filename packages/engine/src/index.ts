export { Engine, type EngineOptions, type EnginePhase, type ModelResidencies } from './engine.js';
export { EngineError, badField, forbidden, itemFailure, notFound, unavailable, type EngineErrorOptions } from './errors.js';
export type { CallOptions, Usage } from './operations/engine-core.js';
export type { EmbedRequest, EmbedResult, Embedding } from './operations/embed.js';
export type { FeaturesRequest, FeaturesResult } from './operations/features.js';
export type { ClassifyRequest, ClassifyResult, ItemClasses } from './operations/classify.js';
export type { PredictRequest, PredictResult } from './operations/predict.js';
export type { IndexAddRequest, IndexAddResult, IndexSearchRequest, IndexSearchResult } from './operations/index-search.js';
export type {
  ActionStatsFields,
  PlanRequest,
  PlanResult,
  RandomActions,
  RolloutActions,
  RolloutRequest,
  RolloutResult,
} from './operations/world.js';
export { requestActionStats } from './operations/action-stats.js';
// the pooling rule is the session's; a request names its pool and gets its vectors in these types
export type { Pool, Vector } from '@jepa/session';
export { featureMap, featureMapJob, featureMapOffThread, encodePng, renderOffThread, tensorGrid, type FeatureMap } from './operations/feature-map.js';
export { renderFeatureMap, type FeatureMapJob } from './operations/feature-map-render.js';
export type { ModelCard, ModelState } from './registry/model-slot.js';
export type { HubModelCard, PullProgress } from './hub/hub-models.js';
// where the Hub and the caches are, for a front end that does not take them from the environment
export type { HubSettings } from '@jepa/hub';
export { formatDuration, formatSize, parseDuration, parseSize } from './registry/quantities.js';
export { Admission, Ticket } from './queue/admission.js';
export { Batcher, type BatcherOptions } from './queue/batcher.js';
export { TextBatcher, type TextBatcherOptions } from './queue/text-batcher.js';
export { ComputeLane } from './queue/compute-lane.js';
export { Dropped, dropReason, rejectOnDrop, type DropReason } from './queue/dropped.js';
export { SILENT_METRICS, type EngineMetrics, type Operation, type UnloadReason } from './queue/engine-metrics.js';
export { RequestScope } from './queue/request-scope.js';
export { decodeBase64 } from './items/base64.js';
export { fieldName } from './items/field-name.js';
export {
  parseItem,
  parseItems,
  parseSampling,
  refuseSampling,
  type ItemKind,
  type ParsedItem,
  type Sampling,
} from './items/parse-item.js';
export {
  MAX_TEXT_CHARS,
  isText,
  mediaOnly,
  parseInput,
  parseInputs,
  parseText,
  parseTexts,
  type InputItem,
  type TextItem,
} from './items/text-item.js';
export { parseIds } from './items/parse-ids.js';
export { imageSize, type ImageSize } from './items/image-size.js';
export { parseActions } from './items/parse-actions.js';
export { PathPolicy, isWithin } from './items/path-policy.js';
export type { EncodedItem, PlannedEncoded, WindowPlace } from './items/encode-items.js';
export {
  MAX_LABELS,
  MAX_WINDOW_FRAMES,
  classifyFields,
  labelsField,
  textField,
  embedFields,
  featuresFields,
  idsField,
  modelField,
  normalizeField,
  planFields,
  poolField,
  predictFields,
  rolloutFields,
  samplingField,
  sizeField,
} from './schemas/request-fields.js';
export { readFields, type Fields } from './schemas/read-fields.js';
