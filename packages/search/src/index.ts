export { DEFAULT_APPROX, GRAPH_SCALARS, type ApproxSettings, type GraphScalar } from './approx-index.js';
export { SearchError, type SearchErrorCode } from './errors.js';
export { describeModel, fileDigest, modelIdentity, type IndexModel } from './model-identity.js';
export type { FileIdentity, NewRow, RowPlace, StoredRow } from './row-store.js';
export { dot, TopK, unit } from './top-k.js';
export {
  ALIGNED_POOL,
  APPROX_MIN_ROWS,
  DB_FILE,
  VectorIndex,
  type Hit,
  type IndexInfo,
  type SearchMode,
  type SearchOptions,
} from './vector-index.js';
