// Models named by their Hugging Face repository, `hf:ORG/NAME[@REVISION][:TYPE]`: pulled into the
// Hugging Face cache and converted into jepa's by @jepa/hub on their first use (one pull per name,
// however many callers wait for it; the downloads are streams and the conversion has a thread of its
// own, so the event loop stays free), then handed to the registry and served as any file is.
// @jepa/hub (and the Hub client under it) loads only when a name or the cache list is asked for.
import { stat } from 'node:fs/promises';
import type { HubSettings, PulledModel } from '@jepa/hub';
import { formatReference, type HubReference, isHubReference, parseHubReference } from '@jepa/hub/reference';
import { hubRefusal } from './hub-refusal.js';

/** Where a pull is: downloading a file (its bytes), then converting (the GGUF's bytes written). */
export interface PullProgress {
  phase: 'downloading' | 'converting';
  /** The file downloading now (its path in the repository); null while converting. */
  file: string | null;
  bytes_done: number;
  bytes_total: number;
  /** When the pull started (Unix seconds). */
  started_at: number;
}

/** A model named `hf:` that the caches hold (or a pull is fetching) and that is not served yet. */
export interface HubModelCard {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'jepa';
  /** `pulling` while it downloads or converts; `unloaded` otherwise (a load or a request pulls what is missing). */
  state: 'unloaded' | 'pulling';
  /** Every file the conversion reads is in the Hugging Face cache. */
  downloaded: boolean;
  /** jepa's cache holds its GGUF, converted by this converter version. */
  converted: boolean;
  /** The family the converter finds in the checkpoint (null while it is not downloaded). */
  family: string | null;
  pull: PullProgress | null;
}

/** What the engine lets the hub do to its registry: is a model served, serve a new file under an id. */
export interface HubTarget {
  has(id: string): boolean;
  add(id: string, path: string): void;
}

interface Pull {
  done: Promise<string>;
  progress: PullProgress;
}

type HubModule = typeof import('@jepa/hub');

export class HubModels {
  readonly #pulls = new Map<string, Pull>();
  #module: Promise<HubModule> | undefined;
  /** The family the converter finds in each downloaded snapshot (a commit's files never change), null where it finds none. */
  readonly #families = new Map<string, Promise<string | null>>();
  #settings: HubSettings | undefined;

  constructor(
    readonly target: HubTarget,
    /** Default: the environment's (HF_ENDPOINT, HF_HUB_CACHE, HF_TOKEN, HF_HUB_OFFLINE, JEPA_CACHE, ...), read at the first use. */
    settings: HubSettings | undefined,
    readonly log: (line: string) => void,
  ) {
    this.#settings = settings;
  }

  static isName(model: unknown): model is string {
    return typeof model === 'string' && isHubReference(model);
  }

  /** The id a name is served under: its reference written the one way (`hf:org/name@main:f32` is `hf:org/name`); refused in one line when malformed. */
  static idOf(model: string): string {
    try {
      return formatReference(parseHubReference(model));
    } catch (err) {
      throw hubRefusal(err);
    }
  }

  async #hub(): Promise<{ hub: HubModule; settings: HubSettings }> {
    this.#module ??= import('@jepa/hub');
    const hub = await this.#module;
    this.#settings ??= hub.hubSettings();
    return { hub, settings: this.#settings };
  }

  /**
   * The served id of `model` (an `hf:` name): served already, or pulled and converted (or found in the
   * caches) now and added to the registry. Callers of the same name share one pull.
   */
  async serve(model: string): Promise<string> {
    const id = HubModels.idOf(model);
    if (this.target.has(id)) return id;
    let pull = this.#pulls.get(id);
    if (!pull) {
      const progress: PullProgress = { phase: 'downloading', file: null, bytes_done: 0, bytes_total: 0, started_at: Math.floor(Date.now() / 1000) };
      const done = this.#pull(id, parseHubReference(id), progress).finally(() => this.#pulls.delete(id));
      pull = { done, progress };
      this.#pulls.set(id, pull);
    }
    return await pull.done;
  }

  async #pull(id: string, ref: HubReference, progress: PullProgress): Promise<string> {
    const { hub, settings } = await this.#hub();
    const t0 = performance.now();
    let pulled: PulledModel;
    try {
      this.log(`model: ${id}: looking in the caches${settings.offline ? ' (HF_HUB_OFFLINE=1)' : ` and at ${settings.endpoint}`}`);
      pulled = await hub.pullModel(ref, {
        settings,
        onBytes: (p) => {
          if (progress.file !== p.file) this.log(`model: ${id}: downloading ${p.file} (${p.total} bytes)`);
          Object.assign(progress, { phase: 'downloading', file: p.file, bytes_done: p.done, bytes_total: p.total });
        },
        onConvert: (p) => {
          if (progress.phase !== 'converting') this.log(`model: ${id}: converting (${p.count} tensors)`);
          Object.assign(progress, { phase: 'converting', file: null, bytes_done: p.bytesWritten, bytes_total: p.bytesTotal });
        },
        onNote: (message) => this.log(`model: ${id}: ${message}`),
      });
    } catch (err) {
      const refusal = hubRefusal(err);
      const message = refusal instanceof Error ? refusal.message : String(refusal);
      this.log(`model: ${message.startsWith(`${id}:`) ? message : `${id}: ${message}`}`);
      throw refusal;
    }
    const seconds = ((performance.now() - t0) / 1000).toFixed(2);
    this.log(`model: ${id}: ${pulled.converted ? 'pulled and converted' : 'found in the caches'} in ${seconds} s: ${pulled.gguf}`);
    if (!this.target.has(id)) this.target.add(id, pulled.gguf);
    return id;
  }

  /**
   * The `hf:` models the caches hold (one per revision a ref names, else per commit) and those being
   * pulled, less the served ones. A cache shared with Python holds language models too: a downloaded
   * snapshot is listed only where the converter finds a family in it, one not fully downloaded only
   * where jepa's cache holds its GGUF. A cache that cannot be read is logged, and lists nothing.
   */
  async cards(): Promise<HubModelCard[]> {
    const out = new Map<string, HubModelCard>();
    try {
      for (const card of await this.#cached()) out.set(card.id, card);
    } catch (err) {
      this.log(`models: cannot list the Hugging Face cache: ${(err as Error).message}`);
    }
    for (const [id, pull] of this.#pulls) {
      if (this.target.has(id)) continue;
      const known = out.get(id);
      out.set(id, {
        ...(known ?? { id, object: 'model', created: pull.progress.started_at, owned_by: 'jepa', downloaded: false, converted: false, family: null }),
        state: 'pulling',
        pull: { ...pull.progress },
      });
    }
    return [...out.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  async #cached(): Promise<HubModelCard[]> {
    const { hub, settings } = await this.#hub();
    const out: HubModelCard[] = [];
    for (const model of await hub.listCachedModels(settings)) {
      if (model.folder === undefined) continue;
      for (const revision of model.revisions) {
        for (const name of revision.refs.length > 0 ? revision.refs : [revision.commit]) {
          const ref: HubReference = { repo: model.repo, revision: name, type: 'f32' };
          const id = formatReference(ref);
          if (this.target.has(id)) continue;
          const snapshot = await hub.cachedSnapshot(ref, settings);
          const converted = model.converted.some((c) => c.commit === revision.commit && c.converter === hub.CONVERTER_VERSION && c.type === ref.type);
          const family = snapshot ? await this.#familyOf(snapshot.checkpoint) : null;
          if (snapshot ? family === null : !converted) continue;
          const created = snapshot ? Math.floor((await stat(snapshot.folder)).mtimeMs / 1000) : 0;
          out.push({
            id,
            object: 'model',
            created,
            owned_by: 'jepa',
            state: 'unloaded',
            downloaded: snapshot !== undefined,
            converted,
            family,
            pull: null,
          });
        }
      }
    }
    return out;
  }

  #familyOf(checkpoint: string): Promise<string | null> {
    let found = this.#families.get(checkpoint);
    if (!found) {
      found = (async () => {
        try {
          const { detectFamily } = await import('@jepa/convert');
          return (await detectFamily(checkpoint)).family;
        } catch {
          return null;
        }
      })();
      this.#families.set(checkpoint, found);
    }
    return found;
  }

  /** The names being pulled now. */
  get pulling(): string[] {
    return [...this.#pulls.keys()];
  }
}
