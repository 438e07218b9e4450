/** The spec's JEPA_LIMIT_* table. */
export const LIMITS = Object.freeze({
  embedDim: [1, 65536],
  nLayer: [1, 1024],
  nHead: [1, 1024],
  ffnDim: [1, 2 ** 20],
  patch: [1, 1024],
  size: [1, 65536],
  inChans: [1, 1024],
  tokens: [0, 2 ** 22],
  lnEps: [0, 1],
  hierNorms: [1, 64],
  fileType: [0, 1023],
} as const);

export const SCHEMA_VERSION = 1;
/** Smallest head width a 3-D RoPE can rotate: three axes of at least one pair each. */
export const MIN_ROPE_HEAD_DIM = 6;
