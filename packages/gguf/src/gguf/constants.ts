export const GGUF_MAGIC = 0x46554747; // "GGUF" read as little-endian u32
export const GGUF_VERSION = 3;
export const GGUF_DEFAULT_ALIGNMENT = 32;
export const GGUF_KEY_ALIGNMENT = 'general.alignment';
/** ggml's GGML_MAX_NAME is 64 including the NUL, so a name may have at most 63 bytes. */
export const GGML_MAX_NAME = 64;
/** gguf.cpp's GGUF_MAX_STRING_LENGTH and GGUF_MAX_ARRAY_ELEMENTS. */
export const GGUF_MAX_STRING_LENGTH = 1024 * 1024 * 1024;
export const GGUF_MAX_ARRAY_ELEMENTS = 1024 * 1024 * 1024;
/** ggml's C reader has no nested arrays at all; ours allows a few levels and refuses deeper ones. */
export const GGUF_MAX_ARRAY_NESTING = 8;
