// What one family is, in one place: its traits, the tensors it adds to the plain ViT table, the encoder graph's
// stages it names, the encoder fields every checkpoint of it shares, the head counts of its released encoders,
// and the tiny model the forge builds of it. A family is one file beside this one, listed in ../families.ts.
import type { FamilyTraits } from '../families.js';
import type { EncoderHparams, HeadHparams, PredictorHparams, PreprocessSpec } from '../hparam-parts.js';
import type { FamilyTensorPart } from '../tensor-parts.js';

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

/**
 * The encoder graph's stages a family names where its graph differs from the plain one (packages/graph maps
 * each name to its stage function; @jepa/gguf cannot import the graph). Position schemes name theirs in
 * ../position-schemes.ts, and the block-causal mask follows jepa.enc.attn_mode.
 */
export interface EncoderGraphHooks {
  /** patch: enc.patch_embed; modality_tokenizer: the video or (one frame) image embedding plus that modality's vector. */
  readonly tokenize: 'patch' | 'modality_tokenizer';
  /** final_norm: enc.norm (none where jepa.enc.final_norm is false); hierarchy_norms: the last one (every one, concatenated, in hierarchy mode). */
  readonly end: 'final_norm' | 'hierarchy_norms';
}

export interface FamilyDefinition<N extends string = string> {
  readonly name: N;
  readonly traits: FamilyTraits;
  /** What the family adds to or removes from the plain ViT table (see expectedTensors). */
  readonly tensors: readonly FamilyTensorPart[];
  readonly graph: EncoderGraphHooks;
  readonly encoder: FamilyEncoderDefaults;
  /** Heads of the family's released encoders by width, for checkpoints that record no head count (Meta's). */
  readonly releasedHeads: Readonly<Record<number, number>>;
  readonly tiny: TinyRecipe;
}

/** The traits a family's tensor parts imply: declared by listing the part, never spelled as a trait. */
type PartTraits = 'nCls' | 'registers' | 'layerScale' | 'swiglu' | 'qkvBiasOptional' | 'imageTokenizer' | 'hierarchyNorms' | 'finalNormOptional';

export interface FamilySpec<N extends string> {
  readonly name: N;
  /** Only what differs from a plain image encoder (no predictor or head; the rest follows from `tensors`). */
  readonly traits: Partial<Omit<FamilyTraits, PartTraits>> & Pick<FamilyTraits, 'pos'>;
  /** The family's own tensors (none: the plain ViT table, its position table and any predictor or head its traits name). */
  readonly tensors?: readonly FamilyTensorPart[];
  /** The graph stages that are the family's own (default: the plain patch embedding and final norm). */
  readonly graph?: Partial<EncoderGraphHooks>;
  /** Only what the traits do not already say (see encoderDefaultsOf). */
  readonly encoder?: Partial<FamilyEncoderDefaults>;
  readonly releasedHeads?: Readonly<Record<number, number>>;
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

const PLAIN_GRAPH: EncoderGraphHooks = { tokenize: 'patch', end: 'final_norm' };

function partTraits(parts: readonly FamilyTensorPart[]): Pick<FamilyTraits, PartTraits> {
  const has = (p: FamilyTensorPart) => parts.includes(p);
  return {
    nCls: has('cls_token') ? 1 : 0,
    registers: has('reg_tokens'),
    layerScale: has('layer_scale'),
    swiglu: has('swiglu_ffn'),
    qkvBiasOptional: has('qkv_bias_optional'),
    imageTokenizer: has('image_tokenizer'),
    hierarchyNorms: has('hier_norms'),
    finalNormOptional: has('final_norm_optional'),
  };
}

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
  const tensors = Object.freeze([...(spec.tensors ?? [])]);
  const traits: FamilyTraits = Object.freeze({ ...PLAIN_TRAITS, ...spec.traits, ...partTraits(tensors) });
  return Object.freeze({
    name: spec.name,
    traits,
    tensors,
    graph: Object.freeze({ ...PLAIN_GRAPH, ...spec.graph }),
    encoder: Object.freeze({ ...encoderDefaultsOf(traits), ...spec.encoder }),
    releasedHeads: Object.freeze({ ...spec.releasedHeads }),
    tiny: Object.freeze({ ...spec.tiny }),
  });
}
