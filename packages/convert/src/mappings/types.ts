import type { Family } from '@jepa/gguf';
import type { TensorRef } from '../readers/tensor-ref.js';
import type { Source } from '../source.js';
import type { HparamParts } from './hparams.js';
import type { TensorMap } from './tensor-map.js';

/** Values a checkpoint may not carry (Meta pickles have no config): given by the user, else the family default. */
export interface ArchOverrides {
  nHead?: number;
  imgSize?: number;
  nFrames?: number;
  /** Heads of a Meta predictor, which its pickle does not record either. */
  predNHead?: number;
  /** The Meta pickle entry to take the encoder from (`encoder`, `target_encoder`, `ema_encoder`) instead of the mapping's choice. */
  entry?: string;
  /** V-JEPA 2-AC: the predictor uses its camera-extrinsics token (the .pt does not record it; the released model does not). */
  acExtrinsics?: boolean;
  /** Leave the predictor out (`--no-predictor`): a mapping that reads it separately does not read it at all. */
  noPredictor?: boolean;
}

export interface MappedModel {
  parts: HparamParts;
  map: TensorMap;
  /** Further source tables mapped alongside (a Meta pickle's `predictor` entry). */
  extraMaps?: TensorMap[];
  /** The top-level entry of a Meta pickle the encoder came from ('target_encoder', …), null for flat files. */
  sourceEntry: string | null;
  /** Choices made for the user to see (entry taken, defaults assumed, parts left out). */
  notes: string[];
}

/** One source layout of one family. */
export interface Mapping {
  /** `hf-vit`, `meta-vjepa2`, …: what `--family` matches besides the GGUF family name. */
  readonly id: string;
  readonly family: Family;
  /** When what the file holds decides the family (a LeWM file without its predictor is an hfvit encoder). */
  familyFor?(source: Source): Family;
  /** The layout in words, for messages. */
  readonly layout: string;
  /**
   * The licence (SPDX) the layout's weights are released under, when that is certain for every file of
   * it (general.license); absent or null where it is not (a generic HF ViT). config.json's own wins.
   */
  license?(source: Source): string | null;
  /** Source tensors the reference never uses; skipped by rule, listed in the summary. */
  readonly ignored: readonly RegExp[];
  map(source: Source, overrides: ArchOverrides): MappedModel | Promise<MappedModel>;
}

export type Tensors = ReadonlyMap<string, TensorRef>;
