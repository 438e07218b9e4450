import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConvertError } from '../../errors.js';
import type { TensorRef } from '../tensor-ref.js';
import { openSafetensorsFile, type SafetensorsFile } from './open-safetensors.js';

export interface ShardedSafetensors {
  tensors: Map<string, TensorRef>;
  metadata: Record<string, string>;
  shards: SafetensorsFile[];
}

/** The weight map of a `model.safetensors.index.json`: tensor name -> shard file name. */
export function parseShardIndex(text: string, what: string): Map<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new ConvertError('SAFETENSORS_BAD_INDEX', `${what} is not JSON (${(cause as Error).message})`, { cause });
  }
  const weightMap = (json as { weight_map?: unknown } | null)?.weight_map;
  if (typeof weightMap !== 'object' || weightMap === null || Array.isArray(weightMap)) {
    throw new ConvertError('SAFETENSORS_BAD_INDEX', `${what} has no weight_map object`);
  }
  const map = new Map<string, string>();
  for (const [name, shard] of Object.entries(weightMap)) {
    // Shards must sit beside the index: a path would let an index read any file on the machine.
    if (typeof shard !== 'string' || shard === '' || shard !== basename(shard) || shard === '.' || shard === '..' || shard.includes('\\')) {
      throw new ConvertError(
        'SAFETENSORS_BAD_INDEX',
        `${what}: tensor '${name}' names shard ${JSON.stringify(shard)}, not a file name beside the index`,
      );
    }
    map.set(name, shard);
  }
  return map;
}

/** Opens every shard an index names and checks that shards and index agree tensor for tensor. */
export async function openShardedSafetensors(indexPath: string): Promise<ShardedSafetensors> {
  const what = basename(indexPath);
  let text: string;
  try {
    text = await readFile(indexPath, 'utf8');
  } catch (cause) {
    throw new ConvertError('CONVERT_IO', `cannot read ${indexPath}: ${(cause as Error).message}`, { cause });
  }
  const weightMap = parseShardIndex(text, what);
  const shardNames = [...new Set(weightMap.values())].sort();
  const shards: SafetensorsFile[] = [];
  try {
    const tensors = new Map<string, TensorRef>();
    const metadata: Record<string, string> = {};
    for (const shardName of shardNames) {
      const shard = await openSafetensorsFile(join(dirname(indexPath), shardName));
      shards.push(shard);
      Object.assign(metadata, shard.header.metadata);
      for (const [name, ref] of shard.tensors) {
        const listed = weightMap.get(name);
        if (listed !== shardName) {
          const where = listed === undefined ? 'is not in the index' : `is indexed in ${listed}`;
          throw new ConvertError('SAFETENSORS_SHARD_MISMATCH', `${what}: tensor '${name}' found in ${shardName} ${where}`);
        }
        tensors.set(name, ref);
      }
    }
    for (const [name, shardName] of weightMap) {
      if (!tensors.has(name))
        throw new ConvertError('SAFETENSORS_SHARD_MISMATCH', `${what}: tensor '${name}' is indexed in ${shardName} but that shard lacks it`);
    }
    return { tensors, metadata, shards };
  } catch (error) {
    await Promise.all(shards.map((s) => s.file.close()));
    throw error;
  }
}
