export type { ByteProgress } from './blob-download.js';
export type { RemoteFile } from './remote-file.js';
export { CONVERTER_VERSION, convertedPath, QUANTIZER_VERSION } from './converted.js';
export { type HubSettings, hubSettings } from './environment.js';
export { HubError, type HubErrorCode } from './errors.js';
export { type CachedFile, type CachedModel, type CachedRevision, type ConvertedModel, listCachedModels } from './list-cache.js';
export { cachedSnapshot, pullSnapshot, type PullOptions, type Snapshot } from './pull.js';
export {
  DEFAULT_REVISION,
  DEFAULT_TYPE,
  formatReference,
  type HubReference,
  isHubReference,
  MODEL_TYPES,
  type ModelType,
  parseHubReference,
  referenceOf,
} from './reference.js';
export { removeCached } from './remove-cached.js';
export { type PulledModel, pullModel, resolveModel, type ResolveOptions } from './resolve-model.js';
