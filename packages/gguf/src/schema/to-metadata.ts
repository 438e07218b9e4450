import { gv, type GgufValue } from '../gguf/value.js';
import type { ModelHparams } from './model-spec.js';

/** The inverse of parseHparams: the jepa.* and general.* entries that describe `h`, in schema order. */
export function hparamsToMetadata(h: ModelHparams): [string, GgufValue][] {
  const out: [string, GgufValue][] = [];
  const put = (key: string, v: GgufValue) => out.push([key, v]);
  const e = h.enc;
  put('general.architecture', gv.str('jepa'));
  put('general.name', gv.str(h.name));
  if (h.license !== null) put('general.license', gv.str(h.license));
  if (h.fileType !== null) put('general.file_type', gv.u32(h.fileType));
  put('jepa.schema_version', gv.u32(h.schemaVersion));
  put('jepa.family', gv.str(h.family));
  put('jepa.enc.embed_dim', gv.u32(e.embedDim));
  put('jepa.enc.n_layer', gv.u32(e.nLayer));
  put('jepa.enc.n_head', gv.u32(e.nHead));
  put('jepa.enc.ffn_dim', gv.u32(e.ffnDim));
  put('jepa.enc.patch_size', gv.u32(e.patchSize));
  put('jepa.enc.tubelet_size', gv.u32(e.tubeletSize));
  put('jepa.enc.img_size', gv.u32(e.imgSize));
  put('jepa.enc.n_frames', gv.u32(e.nFrames));
  put('jepa.enc.in_chans', gv.u32(e.inChans));
  put('jepa.enc.ln_eps', gv.f32(e.lnEps));
  put('jepa.enc.act', gv.str(e.act));
  put('jepa.enc.pos', gv.str(e.pos));
  if (e.rope) {
    put('jepa.enc.rope_freq_layout', gv.str(e.rope.layout));
    put('jepa.enc.rope_theta', gv.f32(e.rope.theta));
    put('jepa.enc.rope_interpolate', gv.bool(e.rope.interpolate));
    if (e.rope.refGrid !== null) put('jepa.enc.rope_ref_grid', gv.u32(e.rope.refGrid));
  }
  put('jepa.enc.n_cls', gv.u32(e.nCls));
  put('jepa.enc.n_reg', gv.u32(e.nReg));
  put('jepa.enc.layer_scale', gv.bool(e.layerScale));
  put('jepa.enc.attn_mode', gv.str(e.attnMode));
  // written only off their defaults, so files of the plain block stay byte-identical
  if (e.ffnKind !== 'mlp') put('jepa.enc.ffn_kind', gv.str(e.ffnKind));
  if (!e.qkvBias) put('jepa.enc.qkv_bias', gv.bool(false));
  if (e.posInterpOffset !== 0) put('jepa.enc.pos_interp_offset', gv.f32(e.posInterpOffset));
  if (!e.finalNorm) put('jepa.enc.final_norm', gv.bool(false));
  if (e.imgTubeletSize !== null) put('jepa.enc.img_tubelet_size', gv.u32(e.imgTubeletSize));
  if (e.hierLayers !== null) {
    put('jepa.enc.n_hier_norm', gv.u32(e.hierLayers.length));
    put('jepa.enc.hier_layers', gv.u32s(e.hierLayers));
  }
  const p = h.pred;
  if (p) {
    put('jepa.pred.kind', gv.str(p.kind));
    put('jepa.pred.embed_dim', gv.u32(p.embedDim));
    put('jepa.pred.n_layer', gv.u32(p.nLayer));
    put('jepa.pred.n_head', gv.u32(p.nHead));
    put('jepa.pred.ffn_dim', gv.u32(p.ffnDim));
    put('jepa.pred.ln_eps', gv.f32(p.lnEps));
    put('jepa.pred.act', gv.str(p.act));
    if (p.kind === 'masked') {
      put('jepa.pred.n_mask_tokens', gv.u32(p.nMaskTokens));
      put('jepa.pred.grid_size', gv.u32(p.gridSize));
      if (p.rope) {
        put('jepa.pred.rope_freq_layout', gv.str(p.rope.layout));
        put('jepa.pred.rope_theta', gv.f32(p.rope.theta));
      } else {
        put('jepa.pred.pos', gv.str(p.pos));
      }
      put('jepa.pred.out_dim', gv.u32(p.outDim));
      put('jepa.pred.embed_in_dim', gv.u32(p.embedInDim));
      put('jepa.pred.proj_context', gv.bool(p.projContext));
    } else if (p.kind === 'ac') {
      put('jepa.pred.rope_freq_layout', gv.str(p.rope.layout));
      put('jepa.pred.rope_theta', gv.f32(p.rope.theta));
      put('jepa.pred.action_dim', gv.u32(p.actionDim));
      put('jepa.pred.state_dim', gv.u32(p.stateDim));
      put('jepa.pred.extrinsics', gv.bool(p.extrinsics));
      put('jepa.pred.frame_causal', gv.bool(p.frameCausal));
      put('jepa.pred.tubelet_size', gv.u32(p.tubeletSize));
      put('jepa.pred.n_frames', gv.u32(p.nFrames));
      put('jepa.pred.grid_size', gv.u32(p.gridSize));
    } else {
      put('jepa.pred.head_dim', gv.u32(p.headDim));
      put('jepa.pred.n_frames', gv.u32(p.nFrames));
      put('jepa.pred.action_dim', gv.u32(p.actionDim));
      put('jepa.pred.action_hidden', gv.u32(p.actionHidden));
      put('jepa.pred.action_act', gv.str(p.actionAct));
      put('jepa.pred.proj_hidden', gv.u32(p.projHidden));
      put('jepa.pred.proj_act', gv.str(p.projAct));
      put('jepa.pred.adaln_eps', gv.f32(p.adalnEps));
    }
  }
  const hd = h.head;
  if (hd) {
    put('jepa.head.kind', gv.str(hd.kind));
    put('jepa.head.n_classes', gv.u32(hd.nClasses));
    if (hd.kind === 'linear') {
      put('jepa.head.pool', gv.str(hd.pool));
      if (hd.lnEps !== null) put('jepa.head.ln_eps', gv.f32(hd.lnEps));
    } else {
      put('jepa.head.depth', gv.u32(hd.depth));
      put('jepa.head.n_head', gv.u32(hd.nHead));
      put('jepa.head.ffn_dim', gv.u32(hd.ffnDim));
      put('jepa.head.ln_eps', gv.f32(hd.lnEps));
      put('jepa.head.act', gv.str(hd.act));
    }
    if (h.labels !== null) put('jepa.head.labels', gv.strs(h.labels));
  }
  const t = h.text;
  if (t) {
    put('jepa.text.embed_dim', gv.u32(t.embedDim));
    put('jepa.text.n_layer', gv.u32(t.nLayer));
    put('jepa.text.n_head', gv.u32(t.nHead));
    put('jepa.text.ffn_dim', gv.u32(t.ffnDim));
    put('jepa.text.context', gv.u32(t.context));
    put('jepa.text.ln_eps', gv.f32(t.lnEps));
    put('jepa.text.act', gv.str(t.act));
    put('jepa.text.out_dim', gv.u32(t.outDim));
    put('jepa.text.logit_scale', gv.f32(t.logitScale));
    put('jepa.text.merges', gv.strs(t.merges));
    put('jepa.text.start_id', gv.u32(t.startId));
    put('jepa.text.end_id', gv.u32(t.endId));
    put('jepa.text.vision_n_layer', gv.u32(t.visionNLayer));
    put('jepa.text.vision_ffn_dim', gv.u32(t.visionFfnDim));
  }
  const pre = h.pre;
  put('jepa.pre.mean', gv.f32s(pre.mean));
  put('jepa.pre.std', gv.f32s(pre.std));
  put(pre.resize.mode === 'short' ? 'jepa.pre.resize_short' : 'jepa.pre.squash_size', gv.u32(pre.resize.size));
  put('jepa.pre.crop', gv.u32(pre.crop));
  put('jepa.pre.resample', gv.str(pre.resample));
  put('jepa.pre.rescale', gv.f32(pre.rescale));
  if ((pre.offset ?? 0) !== 0) put('jepa.pre.offset', gv.f32(pre.offset!));
  put('jepa.pre.crop_rounding', gv.str(pre.cropRounding));
  return out;
}
