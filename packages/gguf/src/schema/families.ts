/** Every family's name; each has its definition (traits, encoder defaults, tiny recipe) in ./family/<name>.ts. */
export const FAMILIES = ['ijepa', 'vjepa', 'vjepa2', 'vjepa2_1', 'hfvit', 'lewm', 'levjepa', 'videomae', 'vivit', 'dinov3'] as const;
export type Family = (typeof FAMILIES)[number];

export const ACTIVATIONS = ['gelu', 'gelu_tanh', 'quick_gelu', 'silu', 'relu'] as const;
export type Activation = (typeof ACTIVATIONS)[number];
/**
 * sincos1d: VideoMAE's 1-D sinusoid table over all patches in token order (sin on even channels, cos on odd).
 * rope2d: DINOv3's 2-D RoPE on the patch tokens alone, from each patch centre's (y, x) normalised per axis to
 * [-1, 1]; no table, so any grid works as trained.
 */
export const POSITIONS = ['sincos2d', 'sincos3d', 'sincos1d', 'learned', 'rope3d', 'rope2d'] as const;
export type PositionScheme = (typeof POSITIONS)[number];
export const ROPE_LAYOUTS = ['tiled', 'interleaved'] as const;
export type RopeLayout = (typeof ROPE_LAYOUTS)[number];
export const ATTN_MODES = ['full', 'block_causal'] as const;
export type AttnMode = (typeof ATTN_MODES)[number];
export const RESAMPLERS = ['bilinear', 'bicubic', 'nearest'] as const;
export type Resample = (typeof RESAMPLERS)[number];
export const CROP_ROUNDINGS = ['round', 'floor'] as const;
export type CropRounding = (typeof CROP_ROUNDINGS)[number];
export const PRED_KINDS = ['masked', 'action', 'ac'] as const;
export type PredictorKind = (typeof PRED_KINDS)[number];
/** Masked predictor positions: 3-D RoPE in the blocks (V-JEPA 2 / 2.1), or rows of a stored sincos table pred.pos_embed added to the tokens (I-JEPA, V-JEPA v1). */
export const PRED_POSITIONS = ['rope3d', 'table'] as const;
export type PredictorPosition = (typeof PRED_POSITIONS)[number];
/** attentive: the V-JEPA pooler + Linear; linear: a pooled token (HEAD_POOLS) + Linear (VideoMAE, ViViT). */
export const HEAD_KINDS = ['attentive', 'linear'] as const;
export type HeadKind = (typeof HEAD_KINDS)[number];
/** A linear head's input: the mean of all tokens through head.fc_norm (VideoMAE), or token 0 (ViViT's CLS). */
export const HEAD_POOLS = ['mean', 'first'] as const;
export type HeadPool = (typeof HEAD_POOLS)[number];
/** mlp: fc2(act(fc1 x)); swiglu: w3(silu(x1) ⊙ x2) with [x1; x2] = w12 x (DINOv2 giant). */
export const FFN_KINDS = ['mlp', 'swiglu'] as const;
export type FfnKind = (typeof FFN_KINDS)[number];

/**
 * What a family's graph is built from; metadata that contradicts it is refused, not reinterpreted.
 * Code that branches on what a family can do reads these traits, never the family's name.
 */
export interface FamilyTraits {
  readonly pos: PositionScheme;
  readonly ropeLayout: RopeLayout | null;
  /** Image families tokenise one frame with a 2-D patch (n_frames = tubelet_size = 1). */
  readonly video: boolean;
  /**
   * A video encoder with a second patch embedding for one-frame inputs (jepa.enc.img_tubelet_size)
   * and image / video modality vectors (V-JEPA 2.1): it takes stills as they are.
   */
  readonly imageTokenizer: boolean;
  /** The encoder ends in hierarchy norms (jepa.enc.hier_layers) instead of enc.norm (V-JEPA 2.1). */
  readonly hierarchyNorms: boolean;
  readonly nCls: 0 | 1;
  readonly registers: boolean;
  readonly layerScale: boolean;
  /** The one family whose graph has the block-causal mask. */
  readonly blockCausal: boolean;
  /** The predictor kinds the family can carry (V-JEPA 2: the masked one, or V-JEPA 2-AC's). */
  readonly predictors: readonly PredictorKind[];
  readonly predictorRequired: boolean;
  /** The classifier kind the family can carry, or null. */
  readonly head: HeadKind | null;
  /** The encoder may end without enc.norm (jepa.enc.final_norm false: VideoMAE with mean pooling). */
  readonly finalNormOptional: boolean;
  /** The masked predictor adds the input's image / video modality vector to every token (V-JEPA 2.1). */
  readonly predictorModalityVectors: boolean;
  /** Encoder blocks may carry the SwiGLU MLP (jepa.enc.ffn_kind) and may drop the qkv bias (jepa.enc.qkv_bias). */
  readonly swiglu: boolean;
  readonly qkvBiasOptional: boolean;
  /** The model may carry dino.txt's vision head and text tower (jepa.text.*). */
  readonly text: boolean;
}
