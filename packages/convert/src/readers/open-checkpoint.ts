import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConvertError } from '../errors.js';
import type { Checkpoint } from './checkpoint.js';
import { RandomAccessFile } from './random-access-file.js';
import { openSafetensorsFile } from './safetensors/open-safetensors.js';
import { openShardedSafetensors } from './safetensors/open-sharded.js';
import { flattenTensors } from './state-dict.js';
import { openTorchZip } from './torch/open-torch-zip.js';

const SHARD_INDEX = 'model.safetensors.index.json';

type SniffedFormat = 'torch-zip' | 'safetensors' | 'legacy-torch' | 'unknown';

function sniff(head: Uint8Array): SniffedFormat {
  if (head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05) && (head[3] === 0x04 || head[3] === 0x06)) return 'torch-zip';
  // Pre-1.6 torch.save: a bare pickle stream (PROTO opcode first) or a tar archive.
  if (head[0] === 0x80 && head[1] >= 2 && head[1] <= 5) return 'legacy-torch';
  if (head.byteLength >= 262 && new TextDecoder().decode(head.subarray(257, 262)) === 'ustar') return 'legacy-torch';
  if (head.byteLength >= 9 && head[8] === 0x7b) return 'safetensors';
  return 'unknown';
}

/** A folder holds either a shard index or exactly one .safetensors file. */
async function resolveDirectory(path: string): Promise<string> {
  const names = await readdir(path);
  if (names.includes(SHARD_INDEX)) return join(path, SHARD_INDEX);
  const single = names.filter((n) => n.endsWith('.safetensors'));
  if (single.length === 1) return join(path, single[0]);
  throw new ConvertError('CONVERT_NO_CHECKPOINT', `${path}: no ${SHARD_INDEX} and ${single.length} .safetensors files (expected one)`);
}

async function openSharded(path: string): Promise<Checkpoint> {
  const sharded = await openShardedSafetensors(path);
  return {
    format: 'safetensors',
    path,
    tensors: sharded.tensors,
    metadata: sharded.metadata,
    root: sharded.tensors,
    close: async () => {
      await Promise.all(sharded.shards.map((s) => s.file.close()));
    },
  };
}

async function openSingleSafetensors(path: string): Promise<Checkpoint> {
  const single = await openSafetensorsFile(path);
  return {
    format: 'safetensors',
    path,
    tensors: single.tensors,
    metadata: single.header.metadata,
    root: single.tensors,
    close: () => single.file.close(),
  };
}

async function openTorch(file: RandomAccessFile): Promise<Checkpoint> {
  const { root, metadata } = await openTorchZip(file);
  const tensors = flattenTensors(root, { adoptNames: true });
  return { format: 'torch-zip', path: file.path, tensors, metadata, root, close: () => file.close() };
}

/**
 * Opens a checkpoint by content, not by extension: torch zip (.pt, .pth, .pth.tar, .bin),
 * safetensors, a shard index, or a folder holding one of those. Reads headers only.
 */
export async function openCheckpoint(path: string): Promise<Checkpoint> {
  let target = path;
  try {
    if ((await stat(path)).isDirectory()) target = await resolveDirectory(path);
  } catch (cause) {
    if (cause instanceof ConvertError) throw cause;
    throw new ConvertError('CONVERT_IO', `cannot open ${path}: ${(cause as Error).message}`, { cause });
  }
  if (target.endsWith('.index.json')) return openSharded(target);

  const file = await RandomAccessFile.open(target);
  let format: SniffedFormat;
  try {
    format = sniff(await file.read(0, Math.min(file.size, 512)));
    if (format === 'torch-zip') return await openTorch(file);
  } catch (error) {
    await file.close();
    throw error;
  }
  await file.close();
  if (format === 'safetensors') return openSingleSafetensors(target);
  if (format === 'legacy-torch') {
    // Not "re-save it with torch": torch.load on an untrusted file is how a pickle payload runs.
    throw new ConvertError(
      'CONVERT_LEGACY_TORCH_FORMAT',
      `${target}: the pre-1.6 torch.save format (a bare pickle or tar, not a zip) is refused because it cannot be read safely; ask its publisher for safetensors or a zip-format checkpoint`,
    );
  }
  throw new ConvertError('CONVERT_UNKNOWN_FORMAT', `${target}: neither a torch zip checkpoint nor safetensors`);
}
