/**
 * The tensors a family adds to or removes from the plain ViT table (patch embedding, the position table its
 * scheme stores, pre-LN blocks with a qkv bias and the MLP, enc.norm): each family's definition lists its own,
 * and expectedTensors builds a model's table from its family's list (see tensors.ts).
 */
export const FAMILY_TENSOR_PARTS = [
  /** enc.patch_embed_img, enc.img_mod_embed, enc.video_mod_embed: a one-frame tokenizer with modality vectors (jepa.enc.img_tubelet_size). */
  'image_tokenizer',
  /** enc.cls_token (jepa.enc.n_cls = 1). */
  'cls_token',
  /** enc.reg_tokens, where jepa.enc.n_reg > 0 (DINOv2 with registers, DINOv3's storage tokens). */
  'reg_tokens',
  /** enc.blk.*.ls1 / ls2, where jepa.enc.layer_scale. */
  'layer_scale',
  /** enc.blk.*.ffn.w12 / w3 in place of fc1 / fc2, where jepa.enc.ffn_kind is swiglu. */
  'swiglu_ffn',
  /** No enc.blk.*.attn.qkv.bias, where jepa.enc.qkv_bias is false. */
  'qkv_bias_optional',
  /** enc.hier_norm.k, one per jepa.enc.hier_layers entry, in place of enc.norm. */
  'hier_norms',
  /** No enc.norm, where jepa.enc.final_norm is false. */
  'final_norm_optional',
  /** head.fc_norm, the norm a linear head puts on the token mean (jepa.head.pool = mean: VideoMAE). */
  'head_fc_norm',
] as const;
export type FamilyTensorPart = (typeof FAMILY_TENSOR_PARTS)[number];
