// What a conversion reads: the checkpoint and the JSON files that travel with it (config.json and
// the HF preprocessor configs, looked for next to the checkpoint).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ConvertError } from './errors.js';
import type { Checkpoint } from './readers/checkpoint.js';
import { openCheckpoint } from './readers/open-checkpoint.js';

export type Json = Record<string, unknown>;

export interface Source {
  /** The path given by the user. */
  readonly path: string;
  /** The folder the JSON side files are read from. */
  readonly dir: string;
  readonly checkpoint: Checkpoint;
  readonly config: Json | null;
  readonly preprocessorConfig: Json | null;
  readonly videoPreprocessorConfig: Json | null;
}

function readJson(path: string): Json | null {
  if (!existsSync(path)) return null;
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Json;
  } catch (cause) {
    throw new ConvertError('CONVERT_BAD_CONFIG', `${path}: ${(cause as Error).message}`, { cause });
  }
}

export function sourceDir(path: string): string {
  try {
    return statSync(path).isDirectory() ? path : dirname(path);
  } catch (cause) {
    throw new ConvertError('CONVERT_IO', `cannot open ${path}: ${(cause as Error).message}`, { cause });
  }
}

/** The side files only (no checkpoint opened): enough to detect an HF family. */
export function readSideFiles(path: string): Pick<Source, 'dir' | 'config' | 'preprocessorConfig' | 'videoPreprocessorConfig'> {
  const dir = sourceDir(path);
  return {
    dir,
    config: readJson(join(dir, 'config.json')),
    preprocessorConfig: readJson(join(dir, 'preprocessor_config.json')),
    videoPreprocessorConfig: readJson(join(dir, 'video_preprocessor_config.json')),
  };
}

/** A folder with a LeWM `weights.pt` (no safetensors) is opened at that file. */
function checkpointPath(path: string): string {
  if (statSync(path).isDirectory() && existsSync(join(path, 'weights.pt')) && !existsSync(join(path, 'model.safetensors'))) {
    return join(path, 'weights.pt');
  }
  return path;
}

export async function openSource(path: string): Promise<Source> {
  const side = readSideFiles(path);
  const checkpoint = await openCheckpoint(checkpointPath(path));
  return { path, ...side, checkpoint };
}

/** `<src basename without extensions>-<dtype>.gguf`, next to the working directory. */
export function defaultOutputName(src: string, dtype: string): string {
  const base = basename(src.replace(/[/\\]+$/, '')).replace(/\.(safetensors|pth\.tar|pth|pt|bin|ckpt|json)$/i, '');
  return `${base}-${dtype}.gguf`;
}
