import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import ffmpeg from 'fluent-ffmpeg';
import { PreprocessError } from '../errors.js';
import { MAX_DECODE_PIXELS } from '../image/decode.js';
import { countFrames, ffmpegBinaries, passthroughTimingArgs, probeVideo, toolComplaint } from './ffmpeg.js';
import { sampleIndices } from './sample.js';

export interface VideoFrames {
  /** The sampled frames in sample order, each HWC rgb24 of width × height × 3 bytes. */
  frames: Uint8Array[];
  width: number;
  height: number;
  /** The decoded-frame index each entry of `frames` came from. */
  indices: number[];
  /** Frames the decode actually produced. */
  totalFrames: number;
}

export interface ReadVideoOptions {
  /** Kill ffmpeg after this many seconds (default 600). */
  timeoutSeconds?: number;
}

interface DecodePass {
  kept: Map<number, Uint8Array>;
  decoded: number;
}

/**
 * Streams every decoded frame of the first video stream through memory once, keeping only
 * the frames whose index is in `wanted`.
 */
function decodePass(path: string, frameBytes: number, wanted: Set<number>, timeoutSeconds: number): Promise<DecodePass> {
  const bins = ffmpegBinaries();
  return new Promise((resolve, reject) => {
    const kept = new Map<number, Uint8Array>();
    let frameIndex = 0;
    let filled = 0;
    let current: Uint8Array | null = wanted.has(0) ? new Uint8Array(frameBytes) : null;
    // Never 'close': fluent-ffmpeg fails a command whose output stream closes more than 20 ms before
    // ffmpeg's exit is seen ("Output stream closed"), which a loaded machine reaches; the exit decides.
    const sink = new PassThrough({ autoDestroy: false });
    sink.on('data', (chunk: Buffer) => {
      let at = 0;
      while (at < chunk.length) {
        const take = Math.min(frameBytes - filled, chunk.length - at);
        if (current) current.set(chunk.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === frameBytes) {
          if (current) kept.set(frameIndex, current);
          frameIndex++;
          filled = 0;
          current = wanted.has(frameIndex) ? new Uint8Array(frameBytes) : null;
        }
      }
    });
    let failed = false;
    let streamEnded = false;
    let stderrText: string | null = null;
    const fail = (err: PreprocessError): void => {
      if (!failed) reject(err);
      failed = true;
    };
    // Settles once ffmpeg has exited and its stdout has drained, in whichever order they happen.
    const settle = (): void => {
      if (failed || !streamEnded || stderrText === null) return;
      if (stderrText.trim() !== '') {
        // With -v error anything on stderr is a decode error; PyAV raises on the same clips.
        fail(new PreprocessError('video_corrupt', `ffmpeg reported errors decoding ${path}: ${toolComplaint(stderrText, path)}`));
      } else if (filled !== 0) {
        fail(
          new PreprocessError('video_corrupt', `${path}: ffmpeg wrote a partial frame (${filled} of ${frameBytes} bytes after ${frameIndex} frames)`),
        );
      } else {
        resolve({ kept, decoded: frameIndex });
      }
    };
    const command = ffmpeg(path, { timeout: timeoutSeconds })
      .setFfmpegPath(bins.ffmpeg)
      .inputOptions(['-nostdin', '-v', 'error', '-noautorotate'])
      .outputOptions(['-map', '0:v:0', '-an', '-sn', '-dn', ...passthroughTimingArgs(bins.version), '-f', 'rawvideo', '-pix_fmt', 'rgb24']);
    command.on('error', (err: Error) => {
      if (/ran into a timeout/.test(err.message)) {
        const message = `ffmpeg did not finish decoding ${path} within ${timeoutSeconds} s`;
        fail(new PreprocessError('video_timeout', message, { cause: err }));
      } else {
        fail(new PreprocessError('video_corrupt', `ffmpeg failed decoding ${path}: ${toolComplaint(err.message, path)}`, { cause: err }));
      }
    });
    command.on('end', (_stdout: string | null, stderr: string | null) => {
      stderrText = stderr ?? '';
      settle();
    });
    sink.on('end', () => {
      streamEnded = true;
      settle();
    });
    command.pipe(sink, { end: true });
  });
}

/**
 * Decodes a clip with ffmpeg and keeps n frames sampled uniformly over the whole clip
 * (`round(linspace(0, T_total - 1, n))`). T_total starts as the container's nb_frames (or a
 * `-count_frames` pass) and is re-checked against the frames actually decoded; when they
 * differ the clip is decoded again and sampled over the true count.
 */
export async function readVideoFrames(path: string, n: number, options: ReadVideoOptions = {}): Promise<VideoFrames> {
  sampleIndices(1, n);
  if (!existsSync(path)) throw new PreprocessError('io_error', `video ${path} does not exist`);
  const timeoutSeconds = options.timeoutSeconds ?? 600;
  const info = await probeVideo(path);
  if (info.width * info.height > MAX_DECODE_PIXELS) {
    throw new PreprocessError(
      'image_too_large',
      `${path}: ${info.width}x${info.height} frames exceed the decode bound of ${MAX_DECODE_PIXELS} pixels`,
    );
  }
  const frameBytes = info.width * info.height * 3;
  let total = info.nbFrames ?? (await countFrames(path));
  for (let attempt = 0; attempt < 2; attempt++) {
    const indices = sampleIndices(total, n);
    const pass = await decodePass(path, frameBytes, new Set(indices), timeoutSeconds);
    if (pass.decoded === 0) throw new PreprocessError('video_corrupt', `${path}: ffmpeg decoded no frames`);
    if (pass.decoded === total) {
      return {
        frames: indices.map((i) => pass.kept.get(i) as Uint8Array),
        width: info.width,
        height: info.height,
        indices,
        totalFrames: total,
      };
    }
    total = pass.decoded;
  }
  throw new PreprocessError('video_corrupt', `${path}: two decodes of the clip produced different frame counts`);
}
