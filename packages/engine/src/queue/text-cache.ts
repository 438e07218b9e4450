// The text vectors a model has computed, by text, so that a label list sent with every zero-shot request
// runs through the text tower once. The least recently used leave first; callers get copies (they may
// normalise them in place).
import type { Vector } from '@jepa/session';

/** Texts kept per model: 1,024 vectors of dino.txt's 2,048 floats are 8 MiB. */
export const TEXT_CACHE_ENTRIES = 1024;

export function copyVector(v: Vector): Vector {
  return { values: v.values.slice(), shape: [...v.shape] };
}

export class TextCache {
  readonly #vectors = new Map<string, Vector>();

  constructor(readonly capacity: number = TEXT_CACHE_ENTRIES) {}

  get size(): number {
    return this.#vectors.size;
  }

  /** A copy of the text's vector, or undefined; a hit becomes the most recently used. */
  get(text: string): Vector | undefined {
    const v = this.#vectors.get(text);
    if (v === undefined) return undefined;
    this.#vectors.delete(text);
    this.#vectors.set(text, v);
    return copyVector(v);
  }

  /** Keeps a copy of the text's vector, dropping the least recently used past capacity. */
  set(text: string, vector: Vector): void {
    this.#vectors.delete(text);
    this.#vectors.set(text, copyVector(vector));
    while (this.#vectors.size > this.capacity) this.#vectors.delete(this.#vectors.keys().next().value!);
  }
}
