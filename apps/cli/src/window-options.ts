// The sampling options of a long video (spec windows-v1, docs/video-windows.md), shared by embed and
// classify: with none of them a clip is one window sampled uniformly over the whole file, as before.
import { InvalidArgumentError, type Command } from 'commander';
import type { WindowOptions } from '@jepa/preprocess';

export interface WindowFlags {
  fps?: number;
  frames?: number;
  windowSeconds?: number;
  stride?: number;
  start?: number;
  end?: number;
}

/** Seconds as a number, or [hh:]mm:ss(.fraction). */
export function parseSeconds(text: string): number {
  const parts = text.trim().split(':');
  if (parts.length > 3 || parts.some((p) => p.trim() === '' || !Number.isFinite(Number(p))))
    throw new InvalidArgumentError('expected seconds (12.5) or [hh:]mm:ss');
  const value = parts.reduce((acc, p) => acc * 60 + Number(p), 0);
  if (value < 0) throw new InvalidArgumentError('expected a time >= 0');
  return value;
}

const positive = (text: string) => {
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v) || v <= 0) throw new InvalidArgumentError('expected a number > 0');
  return v;
};
const whole = (text: string) => {
  const v = Number(text);
  if (!Number.isSafeInteger(v) || v < 1) throw new InvalidArgumentError('expected a whole number >= 1');
  return v;
};

export function addWindowOptions(cmd: Command): Command {
  return cmd
    .option('--fps <f>', 'sample the video at F frames per second of presentation time (default: every frame)', positive)
    .option('--frames <n>', "frames per window (default: the model's trained clip length)", whole)
    .option('--window-seconds <s>', 'windows spanning S seconds, the frames spread over each (default: windows of --frames samples)', positive)
    .option('--stride <s>', 'between window starts: samples, or seconds with --window-seconds (default: one window, no overlap)', positive)
    .option('--start <t>', 'from this presentation time (seconds or [hh:]mm:ss); ffmpeg seeks there', parseSeconds)
    .option('--end <t>', 'up to (not including) this presentation time', parseSeconds);
}

/** The window options given, or null when none was (the clip is one window, as without windows). */
export function windowOptions(flags: WindowFlags): Partial<WindowOptions> | null {
  const given = (['fps', 'frames', 'windowSeconds', 'stride', 'start', 'end'] as const).filter((k) => flags[k] !== undefined);
  if (given.length === 0) return null;
  return Object.fromEntries(given.map((k) => [k, flags[k]])) as Partial<WindowOptions>;
}
