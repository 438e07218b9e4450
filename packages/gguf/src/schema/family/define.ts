// What one family is, in one place: its traits, the encoder fields every checkpoint of it shares, and the
// tiny model the forge builds of it. A family is one file beside this one, listed in ../families.ts.
import type { FamilyTraits } from '../families.js';
import type { EncoderHparams, HeadHparams, PredictorHparams, PreprocessSpec } from '../model-spec.js';

/**
 * The encoder fields a family fixes or defaults: a converter's mapping spells only what it measures
 * (widths, sizes, eps, activation) and what the family lets vary (registers, layer scale, ...).
 * Image families also fix one frame and a tubelet of 1.
 */
export type FamilyEncoderDefaults = Pick<
  EncoderHparams,
  | 'pos'
  | 'rope'
  | 'nCls'
  | 'nReg'
  | 'layerScale'
  | 'attnMode'
  | 'ffnKind'
  | 'qkvBias'
  | 'posInterpOffset'
  | 'finalNorm'
  | 'imgTubeletSize'
  | 'hierLayers'
> &
  Partial<Pick<EncoderHparams, 'tubeletSize' | 'nFrames'>>;

/** How the forge's tiny model of the family differs from the common one (D 32, 2 heads, 2 layers, 8 px in 4 px patches). */
export interface TinyRecipe {
  /** Encoder fields over the family's defaults and the tiny widths. */
  readonly encoder?: Partial<EncoderHparams>;
  /** The attentive head's block count (default 1). */
  readonly headDepth?: Extract<HeadHparams, { kind: 'attentive' }>['depth'];
  readonly pre?: Partial<PreprocessSpec>;
  /** The predictor a forged file carries when asked for one; none where absent. */
  readonly predictor?: (enc: EncoderHparams) => PredictorHparams;
  /** Whether a forged file carries the family's head unless asked (default: when the family has one). */
  readonly headByDefault?: boolean;
}

export interface FamilyDefinition<N extends string = string> {
  readonly name: N;
  readonly traits: FamilyTraits;
  readonly encoder: FamilyEncoderDefaults;
  readonly tiny: TinyRecipe;
}

export interface FamilySpec<N extends string> {
  readonly name: N;
  /** Only what differs from a plain image encoder (no CLS, registers, layer scale, predictor or head). */
  readonly traits: Partial<FamilyTraits> & Pick<FamilyTraits, 'pos'>;
  /** Only what the traits do not already say (see encoderDefaultsOf). */
  readonly encoder?: Partial<FamilyEncoderDefaults>;
  readonly tiny?: TinyRecipe;
}

const PLAIN_TRAITS: Omit<FamilyTraits, 'pos'> = {
  ropeLayout: null,
  video: false,
  imageTokenizer: false,
  hierarchyNorms: false,
  nCls: 0,
  registers: false,
  layerScale: false,
  blockCausal: false,
  predictors: [],
  predictorRequired: false,
  head: null,
  finalNormOptional: false,
  predictorModalityVectors: false,
  swiglu: false,
  qkvBiasOptional: false,
  text: false,
};

/** The RoPE every rotary family but DINOv3 and V-JEPA 2.1 trains with: base 10000 on the trained grid. */
const PLAIN_ROPE = { theta: 10000, interpolate: false, refGrid: null } as const;

/**
 * What the traits say of the encoder: its position scheme, CLS count and rope layout, the block-causal mask
 * where the family has it; the plain block (MLP, qkv bias, no layer scale); no registers; the final norm.
 */
function encoderDefaultsOf(t: FamilyTraits): FamilyEncoderDefaults {
  return {
    pos: t.pos,
    rope: t.ropeLayout === null ? null : { layout: t.ropeLayout, ...PLAIN_ROPE },
    nCls: t.nCls,
    nReg: 0,
    layerScale: false,
    attnMode: t.blockCausal ? 'block_causal' : 'full',
    ffnKind: 'mlp',
    qkvBias: true,
    posInterpOffset: 0,
    finalNorm: true,
    imgTubeletSize: null,
    hierLayers: null,
    ...(t.video ? {} : { tubeletSize: 1, nFrames: 1 }),
  };
}

export function defineFamily<const N extends string>(spec: FamilySpec<N>): FamilyDefinition<N> {
  const traits: FamilyTraits = Object.freeze({ ...PLAIN_TRAITS, ...spec.traits });
  return Object.freeze({
    name: spec.name,
    traits,
    encoder: Object.freeze({ ...encoderDefaultsOf(traits), ...spec.encoder }),
    tiny: Object.freeze({ ...spec.tiny }),
  });
}
