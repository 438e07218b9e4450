// Assembles ModelHparams from what a mapping read, and validates them through the schema's own
// parser (hparams → metadata → parseHparams), so a converter can never write metadata the engine refuses.
import {
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
/**
 * ffnKind and qkvBias default to the plain block (mlp, with a qkv bias), which is every family's but hfvit's
 * variants; posInterpOffset to 0 (a table resized to the grid), every layout's but the dinov2 hub files'; finalNorm
 * to true, every layout's but VideoMAE's mean-pooling classifiers'.
 */
type Defaulted = 'ffnKind' | 'qkvBias' | 'posInterpOffset' | 'finalNorm';
export type EncoderFields = Omit<EncoderHparams, Derived | Defaulted> & Partial<Pick<EncoderHparams, Defaulted>>;

export function encoderHparams(f: EncoderFields): EncoderHparams {
  const gridSize = Math.floor(f.imgSize / f.patchSize);
  const gridFrames = Math.floor(f.nFrames / f.tubeletSize);
  return {
    ...f,
    ffnKind: f.ffnKind ?? 'mlp',
    qkvBias: f.qkvBias ?? true,
    posInterpOffset: f.posInterpOffset ?? 0,
    finalNorm: f.finalNorm ?? true,
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
