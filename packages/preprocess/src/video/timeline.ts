// Every frame's presentation time, before decoding: ffprobe lists the video packets (a demux, no
// decode); sorted, their pts are the frames' times in the order the decoder outputs them. Times are
// pts · time_base in float64, as PyAV's float(frame.pts * frame.time_base) gives them.
import { spawn } from 'node:child_process';
import { PreprocessError } from '../errors.js';
import { ffmpegBinaries, toolComplaint } from './ffmpeg.js';

export interface VideoTimeline {
  width: number;
  height: number;
  /** time_base = num / den. */
  timeBase: [number, number];
  /** The stream's start time in seconds (the origin ffmpeg's -ss counts from). */
  startTime: number;
  /** pts of frame i (presentation order), integers in time_base units. */
  pts: number[];
  /** pts[i] · time_base in seconds. */
  times: number[];
  /** Indices of the frames whose packet is a keyframe. */
  keyframes: number[];
}

interface StreamJson {
  streams?: { width?: number; height?: number; time_base?: string; start_time?: string }[];
}

function runProbe(path: string, entries: string, format: string, timeoutSeconds: number): Promise<string> {
  const { ffprobe } = ffmpegBinaries();
  const args = ['-v', 'error', '-select_streams', 'v:0', '-show_entries', entries, '-of', format, path];
  return new Promise((resolve, reject) => {
    const child = spawn(ffprobe, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutSeconds * 1000);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new PreprocessError('video_unreadable', `cannot run ffprobe on ${path}: ${e.message}`, { cause: e })));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal) reject(new PreprocessError('video_timeout', `ffprobe did not list the packets of ${path} within ${timeoutSeconds} s`));
      else if (code !== 0)
        reject(new PreprocessError('video_unreadable', `ffprobe cannot read ${path}: ${toolComplaint(Buffer.concat(err).toString(), path)}`));
      else resolve(Buffer.concat(out).toString());
    });
  });
}

export async function probeTimeline(path: string, timeoutSeconds = 600): Promise<VideoTimeline> {
  const json = JSON.parse(await runProbe(path, 'stream=width,height,time_base,start_time', 'json', timeoutSeconds)) as StreamJson;
  const stream = json.streams?.[0];
  if (!stream) throw new PreprocessError('video_unreadable', `${path} has no video stream`);
  const { width, height } = stream;
  if (!(Number.isSafeInteger(width) && width! > 0 && Number.isSafeInteger(height) && height! > 0))
    throw new PreprocessError('video_unreadable', `${path}: video stream has no usable size (${width}x${height})`);
  const tb = /^(\d+)\/(\d+)$/.exec(stream.time_base ?? '');
  if (!tb || Number(tb[1]) === 0 || Number(tb[2]) === 0) throw new PreprocessError('video_unreadable', `${path}: the video stream has no time base`);
  const timeBase: [number, number] = [Number(tb[1]), Number(tb[2])];
  // one "pts,flags" line per packet: a 10-minute file lists 15,000 of them, so no JSON
  const packets = (await runProbe(path, 'packet=pts,flags', 'csv=p=0', timeoutSeconds))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [pts, flags] = line.split(',');
      return { pts: pts === 'N/A' || pts === undefined || pts.trim() === '' ? Number.NaN : Number(pts), key: (flags ?? '').includes('K') };
    });
  if (packets.length === 0) throw new PreprocessError('video_corrupt', `${path}: no video packets`);
  if (packets.some((p) => !Number.isSafeInteger(p.pts)))
    throw new PreprocessError('video_unreadable', `${path}: a video packet has no presentation timestamp; windows over time need one on every frame`);
  packets.sort((a, b) => a.pts - b.pts);
  const pts = packets.map((p) => p.pts);
  for (let i = 1; i < pts.length; i++)
    if (pts[i] === pts[i - 1])
      throw new PreprocessError('video_unreadable', `${path}: two video packets share pts ${pts[i]}; the frame times are ambiguous`);
  const start = Number(stream.start_time);
  return {
    width: width!,
    height: height!,
    timeBase,
    startTime: Number.isFinite(start) ? start : 0,
    pts,
    times: pts.map((p) => (p * timeBase[0]) / timeBase[1]),
    keyframes: packets.flatMap((p, i) => (p.key ? [i] : [])),
  };
}
