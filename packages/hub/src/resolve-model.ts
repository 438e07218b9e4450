// The one way a front end turns `-m hf:ORG/NAME[@REVISION][:TYPE]` into a local GGUF: pulled into
// the Hugging Face cache and converted into jepa's, or found there; any other path is returned as it is.
import { existsSync } from 'node:fs';
import type { ConvertProgress } from '@jepa/convert';
import type { ByteProgress } from './blob-download.js';
import { convertedPath, convertSnapshot, quantizeConverted } from './converted.js';
import { type HubSettings, hubSettings } from './environment.js';
import { offlineSnapshot, pullSnapshot, resolveCommit } from './pull.js';
import { formatReference, type HubReference, isConverterType, isHubReference, parseHubReference } from './reference.js';

export interface ResolveOptions {
  /** Default: from the environment (HF_ENDPOINT, HF_HUB_CACHE, HF_TOKEN, HF_HUB_OFFLINE, JEPA_CACHE, ...). */
  settings?: HubSettings;
  onBytes?: (p: ByteProgress) => void;
  onConvert?: (p: ConvertProgress) => void;
  onNote?: (message: string) => void;
}

export interface PulledModel {
  ref: HubReference;
  commit: string;
  gguf: string;
  /** Whether this call converted it (false: it was in jepa's cache). */
  converted: boolean;
}

/** Pulls and converts `ref`, or finds it; with HF_HUB_OFFLINE=1 from the caches alone. */
export async function pullModel(ref: HubReference, options: ResolveOptions = {}): Promise<PulledModel> {
  const settings = options.settings ?? hubSettings();
  const pull = { ...options, settings };
  const commit = settings.offline ? (await offlineSnapshot(ref, settings)).commit : await resolveCommit(ref, pull);
  const gguf = convertedPath(settings.jepaCache, ref.repo, commit, ref.type);
  if (existsSync(gguf)) return { ref, commit, gguf, converted: false };
  const snapshot = await pullSnapshot(ref, pull, commit);
  if (isConverterType(ref.type)) {
    await convertSnapshot(snapshot, gguf, ref.type, options.onConvert);
    return { ref, commit, gguf, converted: true };
  }
  // a quantized type: from the f32 GGUF, converted first where jepa's cache lacks it
  const f32 = convertedPath(settings.jepaCache, ref.repo, commit, 'f32');
  if (!existsSync(f32)) await convertSnapshot(snapshot, f32, 'f32', options.onConvert);
  options.onNote?.(`quantizing ${formatReference({ ...ref, type: 'f32' })} to ${ref.type}`);
  await quantizeConverted(f32, gguf, ref.type);
  return { ref, commit, gguf, converted: true };
}

/** A local path for `model`: itself, or the GGUF of an `hf:` reference. */
export async function resolveModel(model: string, options: ResolveOptions = {}): Promise<string> {
  if (!isHubReference(model)) return model;
  return (await pullModel(parseHubReference(model), options)).gguf;
}
