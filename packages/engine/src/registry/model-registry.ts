// The models an engine serves, by id (the file name without .gguf): loaded in order at start-up.
import { readdirSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { Model } from '@jepa/graph';
import { badField, notFound } from '../errors.js';
import { type ModelCard, ModelSlot, type SlotOptions } from './model-slot.js';

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

export class ModelRegistry {
  readonly #slots = new Map<string, ModelSlot>();
  #disposed = false;

  /** `listHint`: where the caller's front end lists the models, for a refusal that names a model (`(GET /v1/models lists them)`). */
  constructor(
    readonly files: readonly { id: string; path: string }[],
    readonly listHint = '',
  ) {}

  #hint(): string {
    return this.listHint ? ` ${this.listHint}` : '';
  }

  /** Loads every file in order; `onLoaded` hears each one's load time. A failure disposes what loaded. */
  async load(options: SlotOptions, onLoaded: (id: string, seconds: number) => void): Promise<void> {
    try {
      for (const { id, path } of this.files) {
        // a load holds the event loop; between loads /health answers (503 until the last one is in)
        await new Promise((next) => setImmediate(next));
        const t0 = performance.now();
        const model = await Model.load(path, {
          ...(options.threads ? { threads: options.threads } : {}),
          ...(options.device ? { device: options.device } : {}),
        });
        if (this.#disposed) {
          await model.dispose();
          return;
        }
        let slot: ModelSlot;
        try {
          slot = new ModelSlot(id, model, Math.floor(statSync(path).mtimeMs / 1000), options);
        } catch (err) {
          await model.dispose();
          throw err;
        }
        this.#slots.set(id, slot);
        onLoaded(id, (performance.now() - t0) / 1000);
      }
    } catch (err) {
      await this.dispose();
      throw err;
    }
  }

  get size(): number {
    return this.#slots.size;
  }

  /** The named model; the only one when the request names none. */
  get(id: unknown): ModelSlot {
    if (id === undefined || id === null) {
      if (this.#slots.size === 1) return this.#slots.values().next().value!;
      throw badField('model', `required: ${this.#slots.size} models are loaded${this.#hint()}`, 'missing_field');
    }
    if (typeof id !== 'string') throw badField('model', 'must be a string');
    const slot = this.#slots.get(id) ?? this.#slots.get(id.replace(/\.gguf$/i, ''));
    if (!slot) throw notFound(`model '${id.length > 200 ? `${id.slice(0, 200)}…` : id}' is not loaded${this.#hint()}`, 'model_not_found', 'model');
    return slot;
  }

  cards(): ModelCard[] {
    return [...this.#slots.values()].map((s) => s.card());
  }

  /** Disposes every model once its running calls end. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    await Promise.all(slots.map((slot) => slot.dispose()));
  }
}
