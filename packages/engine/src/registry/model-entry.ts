// One served model file and where its weights are: unloaded, loading (one load, which every caller
// waits for), loaded (held by the requests using it, unloaded after its keep-alive once idle), or
// unloading (after the requests using it have finished).
import { statSync } from 'node:fs';
import { type ModelSpec, loadModelSpec } from '@jepa/gguf';
import { isHubReference } from '@jepa/hub/reference';
import { type ModelCard, type ModelSlot, type ModelState, modelCard } from './model-slot.js';
import { formatDuration } from './quantities.js';

export class ModelEntry {
  readonly created: number;
  #spec: ModelSpec | null = null;
  slot: ModelSlot | null = null;
  loading: Promise<ModelSlot> | null = null;
  unloading: Promise<void> | null = null;
  /** Requests using the loaded slot now. */
  holds = 0;
  /** performance.now() of the last use (a load, a hold, a release): what least-recently-used means. */
  lastUsed = 0;
  loads = 0;
  #timer: NodeJS.Timeout | null = null;
  #expiresAt: number | null = null;
  #idle: (() => void)[] = [];

  constructor(
    readonly id: string,
    readonly path: string,
    /** Idle ms after which the model unloads (Infinity: never). */
    public keepAliveMs: number,
  ) {
    this.created = Math.floor(statSync(path).mtimeMs / 1000);
  }

  /** The file's spec (its header, read once; a failure is thrown to the caller and read again next time). */
  get spec(): ModelSpec {
    this.#spec ??= this.slot?.spec ?? loadModelSpec(this.path);
    return this.#spec;
  }

  get state(): ModelState {
    if (this.unloading) return 'unloading';
    if (this.slot) return 'loaded';
    return this.loading ? 'loading' : 'unloaded';
  }

  /** What the weights take once loaded: the file's tensor bytes until a load has measured them. */
  get expectedBytes(): number {
    if (this.slot) return this.slot.bytes;
    let n = 0;
    for (const t of this.spec.tensors.values()) n += t.nbytes;
    return n;
  }

  /** Bytes held or about to be: the slot's (until its unload is done), a load's expected bytes, else 0. */
  get residentBytes(): number {
    if (this.slot) return this.slot.bytes;
    return this.loading ? this.expectedBytes : 0;
  }

  /** Neither loading, unloading nor used: a model that may be unloaded at once. */
  get evictable(): boolean {
    return this.slot !== null && this.holds === 0 && !this.loading && !this.unloading;
  }

  hold(): void {
    this.holds++;
    this.lastUsed = performance.now();
    this.cancelExpiry();
  }

  /** Drops one hold; the last one starts the keep-alive clock (`expire` unloads). */
  release(expire: () => void): void {
    this.holds--;
    this.lastUsed = performance.now();
    if (this.holds > 0) return;
    for (const done of this.#idle.splice(0)) done();
    this.scheduleExpiry(expire);
  }

  /** Resolves once no request holds the model. */
  whenIdle(): Promise<void> {
    if (this.holds === 0) return Promise.resolve();
    return new Promise((done) => this.#idle.push(done));
  }

  scheduleExpiry(expire: () => void): void {
    this.cancelExpiry();
    if (!Number.isFinite(this.keepAliveMs) || this.holds > 0 || !this.slot) return;
    this.#expiresAt = Date.now() + this.keepAliveMs;
    this.#timer = setTimeout(expire, this.keepAliveMs);
    this.#timer.unref();
  }

  cancelExpiry(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#expiresAt = null;
  }

  card(): ModelCard {
    return modelCard(this.id, this.created, this.spec, {
      state: this.state,
      memory_bytes: this.residentBytes,
      keep_alive: formatDuration(this.keepAliveMs),
      expires_at: this.#expiresAt === null ? null : Math.ceil(this.#expiresAt / 1000),
      loads: this.loads,
      // a model named hf: is served from its files in the caches
      ...(isHubReference(this.id) ? { downloaded: true } : {}),
    });
  }
}
