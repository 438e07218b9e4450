// The files a conversion reads, out of everything a repository holds: its configs and one checkpoint
// (safetensors, sharded or not; else a Meta .pth/.pt; pytorch_model.bin only when there is nothing else).
// Never ONNX, Flax, TensorFlow or the .bin beside safetensors; nothing below the top folder.
import { HubError } from './errors.js';

export const SIDE_FILES = ['config.json', 'preprocessor_config.json', 'video_preprocessor_config.json'];
const SHARD_INDEX = 'model.safetensors.index.json';
const SHARD = /^model-\d+-of-\d+\.safetensors$/;
const TORCH = /\.(pth|pt|pth\.tar)$/;

export interface Selection<F> {
  files: F[];
  /** The path (in the repository) the converter opens; config.json is read beside it. */
  checkpoint: string;
}

function pick<F extends { path: string }>(top: F[], names: string[], checkpoint: string): Selection<F> {
  const wanted = new Set([...SIDE_FILES, ...names]);
  return { files: top.filter((f) => wanted.has(f.path)), checkpoint };
}

/** `what` names the repository in a refusal (`hf:org/name@main`). */
export function selectFiles<F extends { path: string }>(files: F[], what: string): Selection<F> {
  const top = files.filter((f) => !f.path.includes('/'));
  const names = top.map((f) => f.path);
  if (names.includes(SHARD_INDEX)) return pick(top, [SHARD_INDEX, ...names.filter((n) => SHARD.test(n))], SHARD_INDEX);
  const safetensors = names.filter((n) => n.endsWith('.safetensors'));
  if (safetensors.includes('model.safetensors')) return pick(top, ['model.safetensors'], 'model.safetensors');
  if (safetensors.length === 1) return pick(top, safetensors, safetensors[0]);
  const several = (kind: string, list: string[]) =>
    new HubError(
      'HUB_NO_CHECKPOINT',
      `${what} holds ${list.length} ${kind} files (${list.join(', ')}) and no model.safetensors: convert the one you want with jepa convert`,
    );
  if (safetensors.length > 1) throw several('.safetensors', safetensors);
  const torch = names.filter((n) => TORCH.test(n));
  if (torch.length === 1) return pick(top, torch, torch[0]);
  if (torch.length > 1) throw several('torch', torch);
  if (names.includes('pytorch_model.bin')) return pick(top, ['pytorch_model.bin'], 'pytorch_model.bin');
  throw new HubError('HUB_NO_CHECKPOINT', `${what} holds no safetensors or torch checkpoint in its top folder`);
}
