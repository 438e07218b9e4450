// jepa's cache of converted models: one GGUF per repository, commit, converter version and type,
// converted by @jepa/convert on a thread of its own (it writes a temp file beside it and renames it
// when complete); a quantized type is made by @jepa/quantize from the f32 GGUF, on a thread too, and
// is keyed by the quantizer's version as well.
import { createRequire } from 'node:module';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConvertProgress, WeightDtype } from '@jepa/convert';
import type { Target } from '@jepa/quantize/targets';
import { getRepoFolderName } from '@huggingface/hub';
import { convertInThread } from './convert-thread.js';
import type { Snapshot } from './pull.js';
import { isConverterType, type ModelType } from './reference.js';

const require = createRequire(import.meta.url);
export const CONVERTER_VERSION: string = (require('@jepa/convert/package.json') as { version: string }).version;
export const QUANTIZER_VERSION: string = (require('@jepa/quantize/package.json') as { version: string }).version;

/** `$JEPA_CACHE/hub/models--ORG--NAME/<commit>/convert-<version>/<type>.gguf` (`<type>.quantize-<version>.gguf` for a quantized type). */
export function convertedPath(jepaCache: string, repo: string, commit: string, type: ModelType): string {
  const name = isConverterType(type) ? `${type}.gguf` : `${type}.quantize-${QUANTIZER_VERSION}.gguf`;
  return join(convertedRoot(jepaCache), getRepoFolderName({ type: 'model', name: repo }), commit, `convert-${CONVERTER_VERSION}`, name);
}

/** The type a converted GGUF's file name says (`q8_0.quantize-0.1.0.gguf` is q8_0). */
export function typeOfConverted(name: string): string {
  return name.replace(/\.gguf$/, '').split('.')[0]!;
}

export function convertedRoot(jepaCache: string): string {
  return join(jepaCache, 'hub');
}

export async function convertSnapshot(snapshot: Snapshot, out: string, type: WeightDtype, onProgress?: (p: ConvertProgress) => void): Promise<void> {
  await mkdir(join(out, '..'), { recursive: true });
  await convertInThread({ kind: 'convert', checkpoint: snapshot.checkpoint, out, type }, onProgress);
}

/** The f32 GGUF `gguf` quantized to `type` at `out`. */
export async function quantizeConverted(gguf: string, out: string, type: Target): Promise<void> {
  await convertInThread({ kind: 'quantize', gguf, out, type });
}
