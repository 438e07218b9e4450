import { z } from 'zod';
import {
  ACTIVATIONS,
  ATTN_MODES,
  CROP_ROUNDINGS,
  FAMILIES,
  FFN_KINDS,
  HEAD_KINDS,
  HEAD_POOLS,
  POSITIONS,
  PRED_KINDS,
  PRED_POSITIONS,
  RESAMPLERS,
  ROPE_LAYOUTS,
} from './families.js';
import { LIMITS } from './limits.js';

/** The GGUF value type a key must be stored as; anything else is refused (JEPA_KEY_TYPE), never converted. */
export type KeyType = 'u32' | 'f32' | 'bool' | 'string' | 'f32[]' | 'u32[]' | 'string[]';

export interface KeyDef {
  readonly key: string;
  readonly type: KeyType;
  readonly schema: z.ZodType;
  readonly doc: string;
}

const int = ([min, max]: readonly [number, number]) => z.number().int().min(min).max(max);
const float = ([min, max]: readonly [number, number]) => z.number().min(min).max(max);

function k(key: string, type: KeyType, schema: z.ZodType, doc: string): KeyDef {
  return { key, type, schema, doc };
}

export const KEYS: readonly KeyDef[] = Object.freeze([
  k('general.architecture', 'string', z.literal('jepa'), "always 'jepa'"),
  k('general.name', 'string', z.string().min(1).max(1024), 'human-readable model name'),
  k('general.license', 'string', z.string().max(1024), 'licence of the weights (optional)'),
  k('general.file_type', 'u32', int(LIMITS.fileType), 'llama.cpp ftype of the dominant weight type (optional)'),
  k('jepa.schema_version', 'u32', z.literal(1), 'version of this schema; 1'),
  k('jepa.family', 'string', z.enum(FAMILIES), 'model family; selects the graph'),

  k('jepa.enc.embed_dim', 'u32', int(LIMITS.embedDim), 'D, encoder width'),
  k('jepa.enc.n_layer', 'u32', int(LIMITS.nLayer), 'encoder blocks'),
  k('jepa.enc.n_head', 'u32', int(LIMITS.nHead), 'attention heads; divides embed_dim'),
  k('jepa.enc.ffn_dim', 'u32', int(LIMITS.ffnDim), 'MLP hidden width'),
  k('jepa.enc.patch_size', 'u32', int(LIMITS.patch), 'P, square patch side in pixels'),
  k('jepa.enc.tubelet_size', 'u32', int(LIMITS.patch), 'T, frames per token (1 for image families)'),
  k('jepa.enc.img_size', 'u32', int(LIMITS.size), 'trained square input side in pixels; a multiple of P'),
  k('jepa.enc.n_frames', 'u32', int(LIMITS.size), 'trained clip length (1 for image families); a multiple of T'),
  k('jepa.enc.in_chans', 'u32', int(LIMITS.inChans), 'input channels'),
  k('jepa.enc.ln_eps', 'f32', float(LIMITS.lnEps), 'LayerNorm epsilon'),
  k('jepa.enc.act', 'string', z.enum(ACTIVATIONS), 'MLP activation (gelu = exact erf GELU)'),
  k('jepa.enc.pos', 'string', z.enum(POSITIONS), 'position scheme; fixed by the family'),
  k('jepa.enc.rope_freq_layout', 'string', z.enum(ROPE_LAYOUTS), 'rope3d / rope2d cos/sin table layout; fixed by the family'),
  k('jepa.enc.rope_theta', 'f32', z.number().gt(0), 'rope3d frequency base (10000); rope2d period base (DINOv3: 100)'),
  k('jepa.enc.rope_interpolate', 'bool', z.boolean(), 'rope3d: rescale h,w positions to rope_ref_grid'),
  k('jepa.enc.rope_ref_grid', 'u32', int(LIMITS.size), 'rope3d interpolation reference grid (256 / P)'),
  k('jepa.enc.n_cls', 'u32', int(LIMITS.tokens), 'CLS tokens prepended (0 or 1 by family)'),
  k('jepa.enc.n_reg', 'u32', int(LIMITS.tokens), 'register tokens after CLS (hfvit, dinov3)'),
  k('jepa.enc.layer_scale', 'bool', z.boolean(), 'blocks carry ls1/ls2 (hfvit, dinov3)'),
  k('jepa.enc.attn_mode', 'string', z.enum(ATTN_MODES), 'full, or block_causal (levjepa only)'),
  k('jepa.enc.ffn_kind', 'string', z.enum(FFN_KINDS), 'MLP form: mlp (absent: fc1, act, fc2) or swiglu (w12, silu gate, w3; hfvit, dinov3)'),
  k('jepa.enc.qkv_bias', 'bool', z.boolean(), 'attn.qkv carries a bias (absent: true; false on hfvit, dinov3)'),
  k(
    'jepa.enc.pos_interp_offset',
    'f32',
    z.number().min(0).lt(1),
    'learned table resized by the scale factor (grid + offset) / side, not to the grid (dinov2 torch.hub: 0.1; absent: 0)',
  ),
  k('jepa.enc.final_norm', 'bool', z.boolean(), 'the encoder ends in enc.norm (absent: true; false on videomae with mean pooling)'),
  k('jepa.enc.img_tubelet_size', 'u32', int(LIMITS.patch), 'vjepa2_1: tubelet of the image tokenizer (1)'),
  k('jepa.enc.n_hier_norm', 'u32', int(LIMITS.hierNorms), 'vjepa2_1: hierarchy norms (4)'),
  k('jepa.enc.hier_layers', 'u32[]', z.array(int([0, LIMITS.nLayer[1] - 1])), 'vjepa2_1: block index of each hierarchy norm'),

  k('jepa.pred.kind', 'string', z.enum(PRED_KINDS), 'masked (vjepa2, vjepa2_1, ijepa, vjepa), action (lewm) or ac (vjepa2: V-JEPA 2-AC)'),
  k('jepa.pred.embed_dim', 'u32', int(LIMITS.embedDim), 'predictor width'),
  k('jepa.pred.n_layer', 'u32', int(LIMITS.nLayer), 'predictor blocks'),
  k('jepa.pred.n_head', 'u32', int(LIMITS.nHead), 'predictor attention heads'),
  k('jepa.pred.ffn_dim', 'u32', int(LIMITS.ffnDim), 'predictor MLP hidden width'),
  k('jepa.pred.ln_eps', 'f32', float(LIMITS.lnEps), 'predictor affine LayerNorm epsilon'),
  k('jepa.pred.act', 'string', z.enum(ACTIVATIONS), 'predictor MLP activation'),
  k('jepa.pred.n_mask_tokens', 'u32', int([1, LIMITS.tokens[1]]), 'masked: rows of pred.mask_tokens'),
  k(
    'jepa.pred.grid_size',
    'u32',
    int(LIMITS.size),
    'masked: side of the fixed position grid the token ids decode on; ac: the size spatial positions snap to (h·grid/H)',
  ),
  k(
    'jepa.pred.pos',
    'string',
    z.enum(PRED_POSITIONS),
    'masked: rope3d (default when absent; vjepa2, vjepa2_1) or table (ijepa, vjepa: rows of pred.pos_embed added to context and mask tokens)',
  ),
  k('jepa.pred.rope_freq_layout', 'string', z.enum(ROPE_LAYOUTS), 'masked, ac: rope3d layout of the predictor'),
  k('jepa.pred.rope_theta', 'f32', z.number().gt(0), 'masked, ac: rope3d frequency base'),
  k('jepa.pred.out_dim', 'u32', int(LIMITS.ffnDim), 'masked: width of pred.proj output'),
  k('jepa.pred.embed_in_dim', 'u32', int(LIMITS.ffnDim), 'masked: input width of the predictor embed (enc D, or n_hier·D)'),
  k('jepa.pred.proj_context', 'bool', z.boolean(), 'masked: pred.proj_context present (vjepa2_1 return_all_tokens)'),
  k('jepa.pred.head_dim', 'u32', int(LIMITS.embedDim), 'action: per-head width (inner = n_head·head_dim)'),
  k(
    'jepa.pred.n_frames',
    'u32',
    int(LIMITS.size),
    'action: history length; rows of pred.pos_embed. ac: trained clip frames (steps = n_frames / tubelet_size)',
  ),
  k('jepa.pred.action_dim', 'u32', int(LIMITS.embedDim), 'action: model action width (frameskip·raw dim); ac: action width (7: xyz, rpy, gripper)'),
  k('jepa.pred.action_hidden', 'u32', int(LIMITS.ffnDim), 'action: action-encoder MLP hidden width'),
  k('jepa.pred.action_act', 'string', z.enum(ACTIVATIONS), 'action: action-encoder activation'),
  k('jepa.pred.proj_hidden', 'u32', int(LIMITS.ffnDim), 'action: projector / pred_proj hidden width (BN folded)'),
  k('jepa.pred.proj_act', 'string', z.enum(ACTIVATIONS), 'action: projector / pred_proj activation'),
  k('jepa.pred.state_dim', 'u32', int(LIMITS.embedDim), 'ac: proprioceptive state width (7)'),
  k('jepa.pred.extrinsics', 'bool', z.boolean(), 'ac: a camera-extrinsics token (width action_dim − 1) follows the state token'),
  k('jepa.pred.frame_causal', 'bool', z.boolean(), 'ac: attention is causal over whole time steps'),
  k('jepa.pred.tubelet_size', 'u32', int(LIMITS.patch), 'ac: frames per time step of the encoder the predictor was trained on'),
  k('jepa.pred.adaln_eps', 'f32', float(LIMITS.lnEps), 'action: epsilon of the non-affine AdaLN LayerNorm'),

  k('jepa.head.kind', 'string', z.enum(HEAD_KINDS), 'head present: attentive pooler + linear classifier, or linear on a pooled token'),
  k('jepa.head.pool', 'string', z.enum(HEAD_POOLS), 'linear: mean (mean of all tokens, then head.fc_norm) or first (token 0)'),
  k('jepa.head.n_classes', 'u32', int([1, LIMITS.tokens[1]]), 'classifier outputs'),
  k('jepa.head.depth', 'u32', int([0, LIMITS.nLayer[1]]), 'self-attention blocks before the cross-attention (v1 0, v2 3)'),
  k('jepa.head.n_head', 'u32', int(LIMITS.nHead), 'pooler attention heads'),
  k('jepa.head.ffn_dim', 'u32', int(LIMITS.ffnDim), 'pooler MLP hidden width'),
  k('jepa.head.ln_eps', 'f32', float(LIMITS.lnEps), 'pooler LayerNorm epsilon'),
  k('jepa.head.act', 'string', z.enum(ACTIVATIONS), 'pooler MLP activation'),
  k('jepa.head.labels', 'string[]', z.array(z.string().max(4096)), 'class names, n_classes of them (optional)'),

  k('jepa.text.embed_dim', 'u32', int(LIMITS.embedDim), 'dino.txt text tower width (1280)'),
  k('jepa.text.n_layer', 'u32', int(LIMITS.nLayer), 'text tower blocks (causal)'),
  k('jepa.text.n_head', 'u32', int(LIMITS.nHead), 'text tower attention heads; divides text embed_dim'),
  k('jepa.text.ffn_dim', 'u32', int(LIMITS.ffnDim), 'text tower MLP hidden width (4·width)'),
  k('jepa.text.context', 'u32', int([2, LIMITS.tokens[1]]), 'token positions (CLIP: 77), start and end included'),
  k('jepa.text.ln_eps', 'f32', float(LIMITS.lnEps), 'text tower and vision head LayerNorm epsilon'),
  k('jepa.text.act', 'string', z.enum(ACTIVATIONS), 'text tower MLP activation (gelu)'),
  k('jepa.text.out_dim', 'u32', int(LIMITS.ffnDim), 'aligned vector width: text projection output, 2·jepa.enc.embed_dim'),
  k('jepa.text.logit_scale', 'f32', z.number().min(-100).max(100), 'score = exp(logit_scale)·cos(image, text)'),
  k('jepa.text.merges', 'string[]', z.array(z.string().min(3).max(1024)), "CLIP's BPE merges in rank order, 'first second' each"),
  k('jepa.text.start_id', 'u32', int([0, LIMITS.ffnDim[1]]), '<|startoftext|>: 512 + merges'),
  k('jepa.text.end_id', 'u32', int([0, LIMITS.ffnDim[1]]), '<|endoftext|>: 512 + merges + 1, the largest id'),
  k('jepa.text.vision_n_layer', 'u32', int(LIMITS.nLayer), 'vision head blocks over the backbone tokens (2)'),
  k('jepa.text.vision_ffn_dim', 'u32', int(LIMITS.ffnDim), 'vision head SwiGLU hidden width'),

  k('jepa.pre.mean', 'f32[]', z.array(z.number()), 'per-channel mean subtracted after rescale; in_chans values'),
  k('jepa.pre.std', 'f32[]', z.array(z.number()), 'per-channel std divided by; in_chans non-zero values'),
  k('jepa.pre.resize_short', 'u32', int(LIMITS.size), 'shortest edge resized to this (exclusive with squash_size)'),
  k('jepa.pre.squash_size', 'u32', int(LIMITS.size), 'resize to this square ignoring aspect (exclusive with resize_short)'),
  k('jepa.pre.crop', 'u32', int(LIMITS.size), 'centre-crop side; at most the resize size'),
  k('jepa.pre.resample', 'string', z.enum(RESAMPLERS), 'resize filter (antialiased)'),
  k('jepa.pre.rescale', 'f32', z.number().gt(0).max(1), 'pixel scale, 1/255'),
  k('jepa.pre.offset', 'f32', z.number().min(-1).max(1), 'added after rescale, before mean/std (absent: 0; ViViT -1)'),
  k('jepa.pre.crop_rounding', 'string', z.enum(CROP_ROUNDINGS), 'centre-crop offset rounding (torchvision: round)'),
]);

export const KEY_INDEX: ReadonlyMap<string, KeyDef> = new Map(KEYS.map((d) => [d.key, d]));
