import { closeSync, mkdtempSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GgmlType } from '../ggml-types.js';
import type { GgufValue } from '../gguf/value.js';
import { GgufWriter } from '../gguf/writer.js';
import type { Family } from '../schema/families.js';
import { FAMILY_DEFINITIONS } from '../schema/family/registry.js';
import type { ModelHparams } from '../schema/model-spec.js';
import { expectedTensors, type TensorSpec } from '../schema/tensors.js';
import { hparamsToMetadata } from '../schema/to-metadata.js';
import { forgedTensorBytes } from './tensor-data.js';
import { tinyHparams } from './tiny-hparams.js';

/** One knob per thing that can be wrong with a model file; with no knobs the forged file is valid. */
export interface ForgeKnobs {
  /** Seed of the weights (default 1). */
  seed?: number;
  /** Include the family's predictor / head (default: whatever the family has). */
  predictor?: boolean;
  head?: boolean;
  /** Change the (consistent) hparams before metadata and tensors are derived from them. */
  edit?: (h: ModelHparams) => ModelHparams;
  /** Store every matmul weight as this ggml type (e.g. GgmlType.F16 or Q8_0). */
  matmulType?: number;
  /** Override (a value) or remove (null) metadata keys after they are derived from the hparams. */
  metadata?: Record<string, GgufValue | null>;
  /** Store a named tensor as another ggml type. */
  tensorType?: Record<string, number>;
  /** Store a named tensor with another shape (ggml order). */
  tensorShape?: Record<string, number[]>;
  /** Leave these tensors out. */
  dropTensors?: string[];
  /** Add tensors the schema does not name. */
  extraTensors?: { name: string; type: number; shape: number[] }[];
  /** general.alignment of the file (default 32). */
  alignment?: number;
  /** Rewrite a tensor's stored data offset after writing (a lying table). */
  lieOffset?: { tensor: string; offset: bigint };
  /** Keep only the first n bytes (a truncated download). */
  truncateTo?: number;
  /** Where forgeModel writes (default: a fresh temp dir). */
  path?: string;
}

export interface ForgedModel {
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly hparams: ModelHparams;
  /** What the file declares, after the knobs. */
  readonly tensors: readonly (TensorSpec & { type: number })[];
  /** File position of each tensor's stored offset; its type field is 4 bytes before, ne[] before that. */
  readonly offsetFieldPositions: ReadonlyMap<string, number>;
}

export function forgeHparams(family: Family, knobs: Pick<ForgeKnobs, 'predictor' | 'head' | 'edit'> = {}): ModelHparams {
  const { traits, tiny } = FAMILY_DEFINITIONS[family];
  const h = tinyHparams(family, knobs.predictor ?? traits.predictors.length > 0, knobs.head ?? tiny.headByDefault ?? traits.head !== null);
  return knobs.edit ? knobs.edit(h) : h;
}

/** A tiny GGUF of `family` in memory. */
export function forgeModelBytes(family: Family, knobs: ForgeKnobs = {}): Omit<ForgedModel, 'path'> {
  const seed = knobs.seed ?? 1;
  const hparams = forgeHparams(family, knobs);
  const w = GgufWriter.inMemory({ alignment: knobs.alignment ?? 32 });
  const metadata = new Map(hparamsToMetadata(hparams));
  for (const [key, value] of Object.entries(knobs.metadata ?? {})) {
    if (value === null) metadata.delete(key);
    else metadata.set(key, value);
  }
  for (const [key, value] of metadata) w.setMetadata(key, value);

  const drop = new Set(knobs.dropTensors ?? []);
  const tensors = expectedTensors(hparams)
    .filter((t) => !drop.has(t.name))
    .map((t) => ({
      ...t,
      shape: knobs.tensorShape?.[t.name] ?? t.shape,
      type: knobs.tensorType?.[t.name] ?? (t.role === 'matmul' ? (knobs.matmulType ?? GgmlType.F32) : GgmlType.F32),
    }));
  for (const x of knobs.extraTensors ?? []) tensors.push({ name: x.name, shape: x.shape, role: 'f32', type: x.type });
  for (const t of tensors) w.addTensor(t.name, t.type, t.shape);
  for (const t of tensors) w.writeTensorData(forgedTensorBytes(seed, t.name, t.type, t.shape));
  const result = w.finish();
  let bytes = result.bytes as Uint8Array;
  if (knobs.lieOffset) {
    const at = result.offsetFieldPositions.get(knobs.lieOffset.tensor);
    if (at === undefined) throw new Error(`forge: no tensor '${knobs.lieOffset.tensor}' to lie about`);
    new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(at, knobs.lieOffset.offset, true);
  }
  if (knobs.truncateTo !== undefined) bytes = bytes.slice(0, knobs.truncateTo);
  return { bytes, hparams, tensors, offsetFieldPositions: result.offsetFieldPositions };
}

/** Writes a tiny GGUF of `family` to disk (a temp file unless knobs.path) and returns where. */
export function forgeModel(family: Family, knobs: ForgeKnobs = {}): ForgedModel {
  const forged = forgeModelBytes(family, knobs);
  const path = knobs.path ?? join(mkdtempSync(join(tmpdir(), 'jepa-forge-')), `${family}.gguf`);
  // in 1 GiB pieces: one write call stops at 2 GiB, and real-size models are bigger
  const fd = openSync(path, 'w');
  try {
    for (let at = 0; at < forged.bytes.length; at += 2 ** 30) writeSync(fd, forged.bytes, at, Math.min(2 ** 30, forged.bytes.length - at));
  } finally {
    closeSync(fd);
  }
  return { path, ...forged };
}
