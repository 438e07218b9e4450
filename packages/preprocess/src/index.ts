export { PreprocessError, type PreprocessErrorCode } from './errors.js';
export type { RgbImage } from './image/types.js';
export { decodeImage, readImageFile, MAX_DECODE_PIXELS, type DecodeOptions } from './image/decode.js';
export { pngChunk, rgbPngHeader } from './image/png-bytes.js';
export { probeImage, exifOrientation, type ImageFormat, type ImageHeader } from './image/probe.js';
export { orientRgb } from './image/orient.js';
export { resizeU8, type ResampleFilter } from './image/resize.js';
export { centerCropU8 } from './image/crop.js';
export {
  validateRecipe,
  recipeAtSize,
  resizedSize,
  cropOffset,
  MAX_RESIZE_PIXELS,
  type PreprocessRecipe,
  type ShortestEdgeRecipe,
  type SquashRecipe,
  type CropRounding,
} from './recipe.js';
export { recipeFromPreKeys, type PreKeys } from './recipe-from-spec.js';
export {
  preprocessImage,
  preprocessClip,
  resizeAndCropU8,
  type ImageTensor,
  type ClipTensor,
  type FrameSet,
} from './preprocess.js';
export { normalizationTables, writeNormalizedPlanes } from './normalize.js';
export { stackNCHW, stackNCTHW } from './batch.js';
export { sampleIndices } from './video/sample.js';
export { readVideoFrames, type VideoFrames, type ReadVideoOptions } from './video/read.js';
export { readFramesNpy } from './video/frames-npy.js';
export { probeTimeline, type VideoTimeline } from './video/timeline.js';
export { checkWindowOptions, lastUse, planWindows, type VideoWindow, type WindowOptions } from './video/windows.js';
export { streamFrames, type StreamedFrame, type StreamEnd, type StreamFramesOptions } from './video/frame-stream.js';
export { ffmpegBinaries, probeVideo, type VideoStreamInfo } from './video/ffmpeg.js';
export { readNpy, writeNpy, encodeNpy, npyHeader, parseNpyHeader, type NpyArray, type NpyData, type NpyDtype } from './npy.js';
