import { forgeModelBytes } from '../forge/forge.js';
import { ByteBuilder } from '../gguf/byte-builder.js';
import { FAMILIES, type Family } from '../schema/family/registry.js';
import { hparamsToMetadata } from '../schema/to-metadata.js';

/** A valid file to mutate, with where its structure is: value type tags, counts, tensor-table fields. */
export interface Seed {
  readonly family: Family;
  readonly bytes: Uint8Array;
  readonly headerEnd: number;
  readonly typeTagPositions: readonly number[];
  readonly tensorFieldPositions: readonly number[];
}

export function seedCorpus(): Seed[] {
  return FAMILIES.map((family) => {
    const f = forgeModelBytes(family);
    // The forge writes hparamsToMetadata(h) in order right after the 24-byte preamble; re-encoding finds the tags.
    const b = new ByteBuilder();
    const typeTagPositions: number[] = [];
    for (const [key, value] of hparamsToMetadata(f.hparams)) {
      b.string(key);
      typeTagPositions.push(24 + b.length);
      b.value(key, value);
    }
    const offsets = [...f.offsetFieldPositions.values()];
    const tensorFieldPositions = offsets.flatMap((at) => [at, at - 4, at - 12]);
    return { family, bytes: f.bytes, headerEnd: Math.max(...offsets) + 8, typeTagPositions, tensorFieldPositions };
  });
}
