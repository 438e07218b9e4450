// Assembles ModelHparams from what a mapping read, and validates them through the schema's own
// parser (hparams → metadata → parseHparams), so a converter can never write metadata the engine refuses.
import {
  FAMILY_DEFINITIONS,
  GgufError,
  hparamsToMetadata,
  parseHparams,
  type EncoderHparams,
  type Family,
  type HeadHparams,
  type ModelHparams,
  type PredictorHparams,
  type PreprocessSpec,
  type TextHparams,
} from '@jepa/gguf';
import { ConvertError } from '../errors.js';

type Derived = 'headDim' | 'gridSize' | 'gridFrames' | 'nPatches';
/** What every mapping reads from the checkpoint; the rest defaults to the family's definition (FamilyEncoderDefaults). */
type Measured = 'embedDim' | 'nLayer' | 'nHead' | 'ffnDim' | 'patchSize' | 'imgSize' | 'inChans' | 'lnEps' | 'act';
export type EncoderFields = Pick<EncoderHparams, Measured> & Partial<Omit<EncoderHparams, Measured | Derived>>;

/** The family's encoder with what the mapping measured or the family lets vary over its defaults. */
export function encoderHparams(family: Family, f: EncoderFields): EncoderHparams {
  const e = { ...FAMILY_DEFINITIONS[family].encoder, ...f };
  const { tubeletSize, nFrames } = e;
  if (tubeletSize === undefined || nFrames === undefined)
    throw new ConvertError('CONVERT_BAD_CONFIG', `${family} is a video family: the mapping must give the tubelet and the trained frames`);
  const gridSize = Math.floor(f.imgSize / f.patchSize);
  const gridFrames = Math.floor(nFrames / tubeletSize);
  return {
    ...e,
    tubeletSize,
    nFrames,
    headDim: Math.floor(f.embedDim / f.nHead),
    gridSize,
    gridFrames,
    nPatches: gridFrames * gridSize * gridSize,
  };
}

export interface HparamParts {
  family: Family;
  name: string;
  /** Set by the conversion (--license, config.json, the mapping's release licence). */
  license?: string | null;
  enc: EncoderHparams;
  pred?: PredictorHparams | null;
  head?: HeadHparams | null;
  text?: TextHparams | null;
  pre: PreprocessSpec;
  labels?: readonly string[] | null;
}

export function validatedHparams(p: HparamParts, fileType: number): ModelHparams {
  const h: ModelHparams = {
    family: p.family,
    schemaVersion: 1,
    name: p.name,
    license: p.license ?? null,
    fileType,
    enc: p.enc,
    pred: p.pred ?? null,
    head: p.head ?? null,
    text: p.text ?? null,
    pre: p.pre,
    labels: p.labels ?? null,
  };
  try {
    return parseHparams(new Map(hparamsToMetadata(h)));
  } catch (cause) {
    if (cause instanceof GgufError) {
      throw new ConvertError('CONVERT_BAD_CONFIG', `the checkpoint's hyperparameters are not a valid ${p.family} model: ${cause.message}`, { cause });
    }
    throw cause;
  }
}

/** Layer count from block-indexed names (`…blocks.{i}.…`): one more than the largest index, all indices present. */
export function countBlocks(names: Iterable<string>, pattern: RegExp): number {
  const seen = new Set<number>();
  for (const n of names) {
    const m = pattern.exec(n);
    if (m) seen.add(Number(m[1]));
  }
  for (let i = 0; i < seen.size; i++) {
    if (!seen.has(i))
      throw new ConvertError('CONVERT_MISSING_TENSOR', `block ${i} is missing (the checkpoint has blocks up to ${Math.max(...seen)})`);
  }
  return seen.size;
}
