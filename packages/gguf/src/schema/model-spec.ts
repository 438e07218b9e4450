import type { GgufHeader, GgufTensorInfo } from '../gguf/header.js';
import type {
  Activation,
  AttnMode,
  CropRounding,
  Family,
  FfnKind,
  HeadPool,
  PositionScheme,
  PredictorPosition,
  Resample,
  RopeLayout,
} from './families.js';

export interface Rope3dParams {
  readonly layout: RopeLayout;
  readonly theta: number;
  /** V-JEPA 2.1: h and w positions are rescaled by (refGrid − 1) / (grid − 1). */
  readonly interpolate: boolean;
  readonly refGrid: number | null;
}

export interface EncoderHparams {
  readonly embedDim: number;
  readonly nLayer: number;
  readonly nHead: number;
  readonly headDim: number;
  readonly ffnDim: number;
  readonly patchSize: number;
  readonly tubeletSize: number;
  readonly imgSize: number;
  readonly nFrames: number;
  readonly inChans: number;
  readonly lnEps: number;
  readonly act: Activation;
  readonly pos: PositionScheme;
  readonly rope: Rope3dParams | null;
  readonly nCls: number;
  readonly nReg: number;
  readonly layerScale: boolean;
  readonly attnMode: AttnMode;
  /** swiglu: ffnDim is the gated width h (w12 has 2h outputs), act is silu. */
  readonly ffnKind: FfnKind;
  readonly qkvBias: boolean;
  /**
   * A learned table is resized to an input's grid g by torch's scale factor (g + offset) / side, not to
   * size g (the dinov2 repository's interpolate_offset); 0: to size g, as HF does.
   */
  readonly posInterpOffset: number;
  /** The blocks are followed by enc.norm (false: VideoMAE with mean pooling, whose tokens are the last block's output). */
  readonly finalNorm: boolean;
  /** Trained patch grid: img_size / patch_size per side, n_frames / tubelet_size in time. */
  readonly gridSize: number;
  readonly gridFrames: number;
  /** gridFrames · gridSize²: rows of a sincos table; learned tables add nCls rows. */
  readonly nPatches: number;
  /** V-JEPA 2.1 only. */
  readonly imgTubeletSize: number | null;
  readonly hierLayers: readonly number[] | null;
}

export interface MaskedPredictorHparams {
  readonly kind: 'masked';
  readonly embedDim: number;
  readonly nLayer: number;
  readonly nHead: number;
  readonly headDim: number;
  readonly ffnDim: number;
  readonly lnEps: number;
  readonly act: Activation;
  readonly nMaskTokens: number;
  readonly gridSize: number;
  readonly pos: PredictorPosition;
  /** pos rope3d: the rotation of the blocks; null for table positions. */
  readonly rope: Rope3dParams | null;
  /** pos table: rows of pred.pos_embed (trained frames / tubelet · grid_size²), the ids a token may take; 0 for rope3d. */
  readonly posRows: number;
  readonly outDim: number;
  readonly embedInDim: number;
  /** embed_in_dim ≠ enc embed_dim: the embed is Linear(in→D), act, Linear(D→pred D). */
  readonly embedMlp: boolean;
  readonly projContext: boolean;
  /** V-JEPA 2.1: pred.img_mod_embed / pred.video_mod_embed added to every token. */
  readonly modalityVectors: boolean;
}

export interface ActionPredictorHparams {
  readonly kind: 'action';
  readonly embedDim: number;
  readonly nLayer: number;
  readonly nHead: number;
  readonly headDim: number;
  readonly ffnDim: number;
  readonly lnEps: number;
  readonly adalnEps: number;
  readonly act: Activation;
  readonly nFrames: number;
  readonly actionDim: number;
  readonly actionHidden: number;
  readonly actionAct: Activation;
  readonly projHidden: number;
  readonly projAct: Activation;
}

/** V-JEPA 2-AC: per time step [action, state, (extrinsics), H·W frame tokens], frame-causal, 3-D RoPE. */
export interface AcPredictorHparams {
  readonly kind: 'ac';
  readonly embedDim: number;
  readonly nLayer: number;
  readonly nHead: number;
  readonly headDim: number;
  readonly ffnDim: number;
  readonly lnEps: number;
  readonly act: Activation;
  readonly actionDim: number;
  readonly stateDim: number;
  readonly extrinsics: boolean;
  /** Conditioning tokens ahead of each step's frame tokens: 2, or 3 with extrinsics. */
  readonly condTokens: number;
  readonly frameCausal: boolean;
  readonly tubeletSize: number;
  /** Trained clip frames; the predictor takes at most nFrames / tubeletSize steps. */
  readonly nFrames: number;
  readonly maxSteps: number;
  /** Spatial positions are scaled by gridSize / H (and / W) before rotation. */
  readonly gridSize: number;
  readonly rope: Rope3dParams;
}

export type PredictorHparams = MaskedPredictorHparams | ActionPredictorHparams | AcPredictorHparams;

export type HeadHparams = AttentiveHeadHparams | LinearHeadHparams;

export interface AttentiveHeadHparams {
  readonly kind: 'attentive';
  readonly nClasses: number;
  readonly depth: number;
  readonly nHead: number;
  readonly headDim: number;
  readonly ffnDim: number;
  readonly lnEps: number;
  readonly act: Activation;
}

/** One Linear on a pooled token: VideoMAE (mean of all tokens through head.fc_norm) and ViViT (token 0, the CLS). */
export interface LinearHeadHparams {
  readonly kind: 'linear';
  readonly nClasses: number;
  readonly pool: HeadPool;
  /** Epsilon of head.fc_norm (pool mean; nn.LayerNorm's default 1e-5 in VideoMAE); null for pool first. */
  readonly lnEps: number | null;
}

export interface PreprocessSpec {
  readonly mean: readonly number[];
  readonly std: readonly number[];
  readonly resize: { readonly mode: 'short'; readonly size: number } | { readonly mode: 'squash'; readonly size: number };
  readonly crop: number;
  readonly resample: Resample;
  readonly rescale: number;
  /** Added after the rescale, before mean / std (ViViT's offset: −1); absent means 0. */
  readonly offset?: number;
  readonly cropRounding: CropRounding;
}

/**
 * dino.txt's text side (dinov3 only): the vision head over the backbone's normed tokens (pre-LN blocks with layer
 * scale, SwiGLU, qkv without bias, no RoPE, then ln_final; the aligned vector is concat(CLS, mean of the patch rows),
 * 2·D wide), and the text tower (token embedding + learned positions, causal pre-LN blocks with a GELU MLP and no
 * qkv bias, ln_final, the row of the end-of-text token, a Linear without bias to outDim), with CLIP's BPE merges.
 */
export interface TextHparams {
  readonly embedDim: number;
  readonly nLayer: number;
  readonly nHead: number;
  readonly headDim: number;
  readonly ffnDim: number;
  /** Token positions (CLIP's 77): rows of text.pos_embd, the most tokens a text has, start and end included. */
  readonly context: number;
  readonly lnEps: number;
  readonly act: Activation;
  /** Width of both aligned vectors: the text projection's output and the vision side's concat(CLS, mean), 2·D. */
  readonly outDim: number;
  /** The score of an image and a text is exp(logitScale)·cos(image, text). */
  readonly logitScale: number;
  /** CLIP's BPE merges, "first second" each, in rank order. */
  readonly merges: readonly string[];
  /** 512 byte pieces + merges + the two special tokens. */
  readonly vocabSize: number;
  readonly startId: number;
  readonly endId: number;
  /** The vision head's blocks (heads: the encoder's). */
  readonly visionNLayer: number;
  readonly visionFfnDim: number;
  readonly visionLnEps: number;
}

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
