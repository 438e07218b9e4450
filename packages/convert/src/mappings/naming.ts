import { basename } from 'node:path';
import type { Source } from '../source.js';

/** general.name: the HF id the folder was saved from when config.json records it, else the folder or file name. */
export function modelName(source: Source): string {
  const recorded = source.config?._name_or_path;
  if (typeof recorded === 'string' && recorded.length > 0 && recorded.length <= 1024) return recorded;
  const own = basename(source.path.replace(/[/\\]+$/, '')).replace(/\.(safetensors|pth\.tar|pth|pt|bin)$/i, '');
  return own.length > 0 ? own.slice(0, 1024) : 'jepa-model';
}
