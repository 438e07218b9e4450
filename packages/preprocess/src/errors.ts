import { type ErrorKind, JepaError, type JepaErrorOptions } from '@jepa/errors';

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

/** What each code means to a front end; a code not listed is the caller's input ('input'). */
const KIND_OF: Partial<Record<PreprocessErrorCode, ErrorKind>> = {
  image_too_large: 'budget',
  resize_too_large: 'budget',
  io_error: 'io',
  ffmpeg_missing: 'io',
  video_timeout: 'timeout',
};

export class PreprocessError extends JepaError {
  declare readonly code: PreprocessErrorCode;

  constructor(code: PreprocessErrorCode, message: string, options: JepaErrorOptions = {}) {
    super(code, message, options, KIND_OF);
  }
}
