// jepa's cache of converted models: one GGUF per repository, commit, converter version and type,
// converted by @jepa/convert on a thread of its own (it writes a temp file beside it and renames it when complete).
import { createRequire } from 'node:module';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConvertProgress, WeightDtype } from '@jepa/convert';
import { getRepoFolderName } from '@huggingface/hub';
import { convertInThread } from './convert-thread.js';
import type { Snapshot } from './pull.js';

export const CONVERTER_VERSION: string = (createRequire(import.meta.url)('@jepa/convert/package.json') as { version: string }).version;

/** `$JEPA_CACHE/hub/models--ORG--NAME/<commit>/convert-<version>/<type>.gguf`. */
export function convertedPath(jepaCache: string, repo: string, commit: string, type: WeightDtype): string {
  return join(convertedRoot(jepaCache), getRepoFolderName({ type: 'model', name: repo }), commit, `convert-${CONVERTER_VERSION}`, `${type}.gguf`);
}

export function convertedRoot(jepaCache: string): string {
  return join(jepaCache, 'hub');
}

export async function convertSnapshot(snapshot: Snapshot, out: string, type: WeightDtype, onProgress?: (p: ConvertProgress) => void): Promise<void> {
  await mkdir(join(out, '..'), { recursive: true });
  await convertInThread({ checkpoint: snapshot.checkpoint, out, type }, onProgress);
}
