/** Stable machine-readable reasons a preprocessing step refused its input. */
export type PreprocessErrorCode =
  | 'unsupported_format'
  | 'truncated_image'
  | 'corrupt_image'
  | 'empty_image'
  | 'image_too_large'
  | 'resize_too_large'
  | 'crop_exceeds_image'
  | 'invalid_recipe'
  | 'invalid_argument'
  | 'shape_mismatch'
  | 'npy_unsupported'
  | 'npy_corrupt'
  | 'ffmpeg_missing'
  | 'video_unreadable'
  | 'video_corrupt'
  | 'video_timeout'
  | 'io_error';

export class PreprocessError extends Error {
  readonly code: PreprocessErrorCode;

  constructor(code: PreprocessErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PreprocessError';
    this.code = code;
  }
}
