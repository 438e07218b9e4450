import { spawnSync } from 'node:child_process';
import ffmpeg from 'fluent-ffmpeg';
import { PreprocessError } from '../errors.js';

export interface FfmpegBinaries {
  ffmpeg: string;
  ffprobe: string;
  /** [major, minor] of ffmpeg, or null for a build whose version string carries no release number. */
  version: [number, number] | null;
}

const INSTALL_HINT = 'install it with `apt-get install ffmpeg` (or set FFMPEG_PATH / FFPROBE_PATH)';

let cached: FfmpegBinaries | undefined;

function firstLineOf(binary: string, what: string): string {
  const run = spawnSync(binary, ['-version'], { encoding: 'utf8', timeout: 30_000 });
  if (run.error) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new PreprocessError(
      'ffmpeg_missing',
      missing ? `${what} not found ('${binary}'): ${INSTALL_HINT}` : `cannot run ${what} ('${binary}'): ${run.error.message}`,
      { cause: run.error },
    );
  }
  if (run.status !== 0) {
    throw new PreprocessError('ffmpeg_missing', `'${binary} -version' exited with status ${run.status}: ${INSTALL_HINT}`);
  }
  return run.stdout.split('\n')[0] ?? '';
}

/** Finds ffmpeg and ffprobe and reads ffmpeg's version, once per process. */
export function ffmpegBinaries(): FfmpegBinaries {
  if (cached) return cached;
  const ffmpegPath = process.env.FFMPEG_PATH || 'ffmpeg';
  const ffprobePath = process.env.FFPROBE_PATH || 'ffprobe';
  const banner = firstLineOf(ffmpegPath, 'ffmpeg');
  firstLineOf(ffprobePath, 'ffprobe');
  const match = /version n?(\d+)\.(\d+)/.exec(banner);
  cached = { ffmpeg: ffmpegPath, ffprobe: ffprobePath, version: match ? [Number(match[1]), Number(match[2])] : null };
  return cached;
}

/** `-fps_mode passthrough` appeared in ffmpeg 5.1; older releases spell it `-vsync 0`. */
export function passthroughTimingArgs(version: [number, number] | null): string[] {
  const old = version !== null && (version[0] < 5 || (version[0] === 5 && version[1] < 1));
  return old ? ['-vsync', '0'] : ['-fps_mode', 'passthrough'];
}

export interface VideoStreamInfo {
  width: number;
  height: number;
  /** The container's frame count, or null where it has none. */
  nbFrames: number | null;
}

function positiveInt(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * ffmpeg's or ffprobe's complaint about `path` as one line: fluent-ffmpeg's "ffprobe exited with
 * code 1" wrapper and the tool's own "PATH: " prefix dropped (the message names the file once),
 * the lines joined with "; ".
 */
export function toolComplaint(text: string, path: string): string {
  const lines = text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim().replace(/^ff(?:mpeg|probe) exited with code \d+:?\s*/, ''))
    .map((line) => (line.startsWith(`${path}: `) ? line.slice(path.length + 2) : line))
    .filter((line) => line !== '');
  return [...new Set(lines)].slice(0, 3).join('; ') || 'no reason given';
}

function ffprobeStreams(path: string, options: string[]): Promise<ffmpeg.FfprobeStream[]> {
  const { ffprobe } = ffmpegBinaries();
  return new Promise((resolve, reject) => {
    ffmpeg.setFfprobePath(ffprobe);
    ffmpeg.ffprobe(path, ['-v', 'error', '-select_streams', 'v:0', ...options], (err, data) => {
      if (err) {
        reject(new PreprocessError('video_unreadable', `ffprobe cannot read ${path}: ${toolComplaint(String(err.message), path)}`, { cause: err }));
      } else {
        resolve(data.streams.filter((s) => s.codec_type === 'video'));
      }
    });
  });
}

/** Width, height and the container's nb_frames of the first video stream. */
export async function probeVideo(path: string): Promise<VideoStreamInfo> {
  const [stream] = await ffprobeStreams(path, []);
  if (!stream) throw new PreprocessError('video_unreadable', `${path} has no video stream`);
  const width = positiveInt(stream.width);
  const height = positiveInt(stream.height);
  if (width === null || height === null) {
    throw new PreprocessError('video_unreadable', `${path}: video stream has no usable size (${stream.width}x${stream.height})`);
  }
  return { width, height, nbFrames: positiveInt(stream.nb_frames) };
}

/** Frame count from a full `-count_frames` decode pass, for containers that do not store one. */
export async function countFrames(path: string): Promise<number> {
  const [stream] = await ffprobeStreams(path, ['-count_frames']);
  const count = stream ? positiveInt(stream.nb_read_frames) : null;
  if (count === null) throw new PreprocessError('video_corrupt', `${path}: ffprobe -count_frames decoded no frames`);
  return count;
}
