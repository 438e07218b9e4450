import type { GgufHeader, GgufTensorInfo } from '../gguf/header.js';
import type { Family } from './family/registry.js';
import type { EncoderHparams, HeadHparams, PredictorHparams, PreprocessSpec, TextHparams } from './hparam-parts.js';

export type * from './hparam-parts.js';

/** Hyperparameters only: what the metadata says, after validation. */
export interface ModelHparams {
  readonly family: Family;
  readonly schemaVersion: number;
  readonly name: string;
  readonly license: string | null;
  readonly fileType: number | null;
  readonly enc: EncoderHparams;
  readonly pred: PredictorHparams | null;
  readonly head: HeadHparams | null;
  /** dino.txt's vision head and text tower, or null. */
  readonly text: TextHparams | null;
  readonly pre: PreprocessSpec;
  readonly labels: readonly string[] | null;
}

/** A validated model: every consumer reads hparams from here, never from raw keys. */
export interface ModelSpec extends ModelHparams {
  readonly tensors: ReadonlyMap<string, GgufTensorInfo>;
  readonly header: GgufHeader;
}
