// The models an engine serves, by id (the file name without .gguf), as resources: loaded on first use
// (or at start-up, the preloaded ones), one load however many requests wait for it, unloaded once idle
// past their keep-alive, and evicted least recently used first when a load would pass the memory cap.
import { readdirSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { returnFreedMemory } from '@jepa/graph';
import { ModelSession } from '@jepa/session';
import { EngineError, badField, notFound, unavailable } from '../errors.js';
import type { UnloadReason } from '../queue/engine-metrics.js';
import { ModelEntry } from './model-entry.js';
import { type ModelCard, ModelSlot, type ModelState, type SlotOptions } from './model-slot.js';
import { formatSize } from './quantities.js';

/** The files to serve: each --model, then every .gguf in --models-dir (sorted); ids must not clash. */
export function modelFiles(models: readonly string[], modelsDir: string | undefined): { id: string; path: string }[] {
  const paths = models.map((m) => resolve(m));
  if (modelsDir !== undefined) {
    let names: string[];
    try {
      names = readdirSync(modelsDir);
    } catch (err) {
      throw new Error(`--models-dir ${modelsDir}: ${(err as Error).message}`);
    }
    for (const name of names.filter((n) => n.toLowerCase().endsWith('.gguf')).sort()) paths.push(resolve(modelsDir, name));
  }
  if (paths.length === 0) throw new Error('no models: give --model FILE or --models-dir DIR (with .gguf files)');
  const seen = new Map<string, string>();
  return paths.map((path) => {
    const id = basename(path).replace(/\.gguf$/i, '');
    const other = seen.get(id);
    if (other !== undefined) throw new Error(`two models would be called '${id}': ${other} and ${path}`);
    seen.set(id, path);
    return { id, path };
  });
}

export interface RegistryOptions extends SlotOptions {
  /** Idle ms after which a model unloads (Infinity: never; 0: as soon as its last request ends). */
  keepAliveMs: number;
  /** Per-model keep-alive, by id, over keepAliveMs. */
  keepAliveById?: ReadonlyMap<string, number>;
  /** Ids that will be added once pulled (the `hf:` models named at start-up): a keep-alive may name them. */
  pending?: readonly string[];
  /** The most bytes the loaded models' weights may hold together (Infinity: no cap). */
  maxBytes: number;
  onLoaded?: (id: string, seconds: number, bytes: number) => void;
  onUnloaded?: (id: string, reason: UnloadReason) => void;
  /** Where a refusal that names a model says the models are listed (`(GET /v1/models lists them)`). */
  listHint?: string;
}

/** A request's use of a loaded model: release() once, when the request is done with it. */
export interface ModelLease {
  slot: ModelSlot;
  release(): void;
}

export class ModelRegistry {
  readonly #entries = new Map<string, ModelEntry>();
  readonly #options: RegistryOptions;
  #disposed = false;

  constructor(
    readonly files: readonly { id: string; path: string }[],
    options: RegistryOptions,
  ) {
    this.#options = options;
    for (const id of options.keepAliveById?.keys() ?? [])
      if (!files.some((f) => f.id === id) && !options.pending?.includes(id)) throw new Error(`keep-alive for '${id}': no model is called that`);
    for (const { id, path } of files) this.#entries.set(id, new ModelEntry(id, path, options.keepAliveById?.get(id) ?? options.keepAliveMs));
  }

  get maxBytes(): number {
    return this.#options.maxBytes;
  }

  #hint(): string {
    return this.#options.listHint ? ` ${this.#options.listHint}` : '';
  }

  /** Whether a model is served under this id. */
  has(id: string): boolean {
    return this.#entries.has(id);
  }

  /** Serves one more file under `id` (a model pulled by name), its header read now; loaded on its first use. */
  add(id: string, path: string): void {
    if (this.#disposed) throw unavailable('the server is shutting down', 'shutting_down');
    if (this.#entries.has(id)) throw new Error(`a model is already called '${id}'`);
    const entry = new ModelEntry(id, path, this.#options.keepAliveById?.get(id) ?? this.#options.keepAliveMs);
    try {
      void entry.spec;
    } catch (err) {
      throw new EngineError('load_failed', `${id} (${path}): ${(err as Error).message}`, { kind: 'unavailable', param: 'model' });
    }
    this.#entries.set(id, entry);
  }

  /** Reads the header of every model not preloaded (refusing a damaged one now rather than at its first request). */
  checkHeaders(except: ReadonlySet<string>): void {
    for (const entry of this.#entries.values()) {
      if (except.has(entry.id)) continue;
      try {
        void entry.spec;
      } catch (err) {
        throw new Error(`${entry.path}: ${(err as Error).message}`);
      }
    }
  }

  /** Loads these models in order (a server's --model files); a failure disposes what loaded. */
  async preload(ids: readonly string[]): Promise<void> {
    try {
      for (const id of ids) await this.slot(id);
    } catch (err) {
      await this.dispose();
      throw err;
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The models in this state now (`loaded`: their weights are in memory). */
  idsIn(state: ModelState): string[] {
    return [...this.#entries.values()].filter((e) => e.state === state).map((e) => e.id);
  }

  /** The named model's entry; the only one when the request names none. */
  entry(id: unknown): ModelEntry {
    if (id === undefined || id === null) {
      if (this.#entries.size === 1) return this.#entries.values().next().value!;
      throw badField('model', `required: ${this.#entries.size} models are served${this.#hint()}`, 'missing_field');
    }
    if (typeof id !== 'string') throw badField('model', 'must be a string');
    const entry = this.#entries.get(id) ?? this.#entries.get(id.replace(/\.gguf$/i, ''));
    if (!entry) throw notFound(`model '${id.length > 200 ? `${id.slice(0, 200)}…` : id}' is not served${this.#hint()}`, 'model_not_found', 'model');
    return entry;
  }

  /** The named model, loaded (waiting for the load in progress, or starting one), without holding it. */
  async slot(id: unknown): Promise<ModelSlot> {
    const lease = await this.acquire(id);
    lease.release();
    return lease.slot;
  }

  /** The named model, loaded and held until release(): not unloaded or evicted while held. */
  async acquire(id: unknown): Promise<ModelLease> {
    const entry = this.entry(id);
    for (;;) {
      if (this.#disposed) throw unavailable('the server is shutting down', 'shutting_down');
      if (entry.unloading) await entry.unloading;
      else if (entry.slot) {
        const slot = entry.slot;
        entry.hold();
        let released = false;
        return {
          slot,
          release: () => {
            if (released) return;
            released = true;
            entry.release(() => void this.#unload(entry, 'idle'));
          },
        };
      } else {
        entry.loading ??= this.#load(entry).finally(() => {
          entry.loading = null;
        });
        await entry.loading;
      }
    }
  }

  /** Runs `work` holding the named model. */
  async withModel<T>(id: unknown, work: (slot: ModelSlot) => Promise<T>): Promise<T> {
    const lease = await this.acquire(id);
    try {
      return await work(lease.slot);
    } finally {
      lease.release();
    }
  }

  /** Loads the model now (a load route), optionally with a new keep-alive; resolves with its card. */
  async load(id: unknown, keepAliveMs?: number): Promise<ModelCard> {
    const entry = this.entry(id);
    if (keepAliveMs !== undefined) entry.keepAliveMs = keepAliveMs;
    await this.slot(entry.id);
    if (entry.holds === 0) entry.scheduleExpiry(() => void this.#unload(entry, 'idle'));
    return entry.card();
  }

  /** Unloads the model once the requests using it have finished (an unload route); resolves with its card. */
  async unload(id: unknown): Promise<ModelCard> {
    const entry = this.entry(id);
    if (entry.loading) await entry.loading.catch(() => {});
    await this.#unload(entry, 'request');
    return entry.card();
  }

  cards(): ModelCard[] {
    return [...this.#entries.values()].map((e) => e.card());
  }

  async #load(entry: ModelEntry): Promise<ModelSlot> {
    await this.#makeRoom(entry);
    const t0 = performance.now();
    const o = this.#options;
    const session = await ModelSession.load(entry.path, {
      id: entry.id,
      ...(o.threads ? { threads: o.threads } : {}),
      ...(o.device ? { device: o.device } : {}),
      runtime: o.runtime,
      notice: o.notice,
      encoder: { maxBatch: o.maxBatch },
      input: { exifOrient: true, decoder: 'native' },
    });
    if (this.#disposed) {
      await session.dispose();
      throw unavailable('the server is shutting down', 'shutting_down');
    }
    let slot: ModelSlot;
    try {
      slot = new ModelSlot(entry.id, session, entry.created, o);
    } catch (err) {
      await session.dispose();
      throw err;
    }
    entry.slot = slot;
    entry.loads++;
    entry.lastUsed = performance.now();
    o.onLoaded?.(entry.id, (performance.now() - t0) / 1000, slot.bytes);
    // idle until a request holds it: the keep-alive runs from now
    queueMicrotask(() => entry.scheduleExpiry(() => void this.#unload(entry, 'idle')));
    return slot;
  }

  /** Unloads idle models, least recently used first, until `entry`'s weights fit under maxBytes. */
  async #makeRoom(entry: ModelEntry): Promise<void> {
    const max = this.#options.maxBytes;
    if (!Number.isFinite(max)) return;
    const need = entry.expectedBytes;
    if (need > max)
      throw unavailable(
        `model '${entry.id}' needs ${formatSize(need)} of weights, more than --max-model-memory (${formatSize(max)})`,
        'model_too_large',
        null,
      );
    for (;;) {
      const others = [...this.#entries.values()].filter((e) => e !== entry);
      const held = others.reduce((n, e) => n + e.residentBytes, 0);
      if (held + need <= max) return;
      const victim = others.filter((e) => e.evictable).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      const leaving = others.find((e) => e.unloading);
      if (victim) await this.#unload(victim, 'evicted');
      else if (leaving) await leaving.unloading;
      else {
        const busy = others
          .filter((e) => e.residentBytes > 0)
          .map((e) => `${e.id} (${formatSize(e.residentBytes)}, ${e.state === 'loading' ? 'loading' : 'in use'})`);
        throw new EngineError(
          'model_memory_full',
          `model '${entry.id}' needs ${formatSize(need)} and --max-model-memory (${formatSize(max)}) is held by models in use: ${busy.join(', ')}; try again when they are idle`,
          { kind: 'unavailable', retryAfter: 1 },
        );
      }
    }
  }

  /** Waits for the requests using the model, then disposes it and hands its memory back to the OS. */
  #unload(entry: ModelEntry, reason: UnloadReason): Promise<void> {
    if (entry.unloading) return entry.unloading;
    if (!entry.slot) return Promise.resolve();
    entry.cancelExpiry();
    entry.unloading = (async () => {
      await entry.whenIdle();
      const slot = entry.slot!;
      entry.slot = null;
      await slot.dispose();
      await returnFreedMemory();
      this.#options.onUnloaded?.(entry.id, reason);
    })().finally(() => {
      entry.unloading = null;
    });
    return entry.unloading;
  }

  /** Disposes every model once its running calls end. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const entries = [...this.#entries.values()];
    await Promise.all(entries.map((e) => e.loading?.catch(() => {})));
    await Promise.all(
      entries.map(async (e) => {
        e.cancelExpiry();
        if (e.unloading) await e.unloading;
        const slot = e.slot;
        e.slot = null;
        await slot?.dispose();
      }),
    );
  }
}
