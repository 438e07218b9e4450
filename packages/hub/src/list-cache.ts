// What the caches hold: each model repository in the Hugging Face cache (scanned by @huggingface/hub),
// its revisions, files and sizes, and the GGUFs jepa converted from it.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { scanCacheDir } from '@huggingface/hub';
import { convertedRoot, typeOfConverted } from './converted.js';
import type { HubSettings } from './environment.js';

export interface CachedFile {
  path: string;
  size: number;
}

export interface CachedRevision {
  commit: string;
  refs: string[];
  files: CachedFile[];
  size: number;
}

export interface ConvertedModel {
  commit: string;
  converter: string;
  type: string;
  path: string;
  size: number;
}

export interface CachedModel {
  repo: string;
  /** The repository's folder in the Hugging Face cache (absent when only converted GGUFs remain). */
  folder?: string;
  size: number;
  revisions: CachedRevision[];
  converted: ConvertedModel[];
}

async function entries(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch {
    return [];
  }
}

/** The converted GGUFs under $JEPA_CACHE/hub, by repository folder name (models--ORG--NAME). */
async function convertedModels(jepaCache: string): Promise<Map<string, ConvertedModel[]>> {
  const out = new Map<string, ConvertedModel[]>();
  const root = convertedRoot(jepaCache);
  for (const folder of await entries(root)) {
    const list: ConvertedModel[] = [];
    for (const commit of await entries(join(root, folder)))
      for (const converter of await entries(join(root, folder, commit)))
        for (const name of await entries(join(root, folder, commit, converter))) {
          if (!name.endsWith('.gguf') || name.startsWith('.')) continue;
          const path = join(root, folder, commit, converter, name);
          list.push({
            commit,
            converter: converter.replace(/^convert-/, ''),
            type: typeOfConverted(name),
            path,
            size: (await stat(path)).size,
          });
        }
    if (list.length > 0) out.set(folder, list);
  }
  return out;
}

const repoOf = (folder: string) => folder.replace(/^models--/, '').replace('--', '/');

export async function listCachedModels(settings: HubSettings): Promise<CachedModel[]> {
  const converted = await convertedModels(settings.jepaCache);
  const models = new Map<string, CachedModel>();
  const scanned = await scanCacheDir(settings.cacheDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return { repos: [] };
    throw err;
  });
  for (const repo of scanned.repos) {
    if (repo.id.type !== 'model') continue;
    const folder = repo.path.split('/').pop() ?? '';
    models.set(folder, {
      repo: repo.id.name,
      folder: repo.path,
      size: repo.size,
      revisions: repo.revisions
        .map((r) => ({
          commit: r.commitOid,
          refs: [...r.refs].sort(),
          files: r.files.map((f) => ({ path: f.path.slice(r.path.length + 1), size: f.blob.size })).sort((a, b) => a.path.localeCompare(b.path)),
          size: r.size,
        }))
        .sort((a, b) => a.commit.localeCompare(b.commit)),
      converted: [],
    });
  }
  for (const [folder, list] of converted) {
    const model = models.get(folder) ?? { repo: repoOf(folder), size: 0, revisions: [], converted: [] };
    model.converted = list.sort((a, b) => a.path.localeCompare(b.path));
    models.set(folder, model);
  }
  return [...models.values()].sort((a, b) => a.repo.localeCompare(b.repo));
}
