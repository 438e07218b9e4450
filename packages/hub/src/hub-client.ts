// The Hub's API through @huggingface/hub: a revision to its commit, a commit to its file list.
import { listFiles, modelInfo } from '@huggingface/hub';
import type { RemoteFile } from './remote-file.js';
import type { HubSettings } from './environment.js';
import { HubFetch, type RetryPolicy } from './retry.js';

export class HubClient {
  readonly hubFetch: HubFetch;

  constructor(
    readonly settings: HubSettings,
    readonly policy: RetryPolicy,
  ) {
    this.hubFetch = new HubFetch(policy);
  }

  #common() {
    return { hubUrl: this.settings.endpoint, fetch: this.hubFetch.fetch, ...(this.settings.token ? { accessToken: this.settings.token } : {}) };
  }

  async commitOf(repo: string, revision: string): Promise<string> {
    const info = await modelInfo({ name: repo, revision, additionalFields: ['sha'], ...this.#common() });
    return info.sha;
  }

  async filesOf(repo: string, commit: string): Promise<RemoteFile[]> {
    const out: RemoteFile[] = [];
    for await (const entry of listFiles({ repo: { type: 'model', name: repo }, revision: commit, recursive: true, ...this.#common() })) {
      if (entry.type !== 'file') continue;
      const etag = entry.lfs?.oid ?? entry.oid;
      if (etag) out.push({ path: entry.path, size: entry.lfs?.size ?? entry.size, etag, lfs: entry.lfs !== undefined });
    }
    return out;
  }
}
