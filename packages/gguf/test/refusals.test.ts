import { describe, expect, it } from 'vitest';
import type { GgufErrorCode } from '../src/errors.js';
import { forgeModelBytes, type ForgeKnobs } from '../src/forge/forge.js';
import { GgmlType } from '../src/ggml-types.js';
import { gv, type GgufValue } from '../src/gguf/value.js';
import type { Family } from '../src/schema/family/registry.js';
import { expectRefused } from './helpers.js';
import { rawGguf } from './raw-gguf.js';

interface Defect {
  what: string;
  bytes: () => Uint8Array;
  code: GgufErrorCode;
  /** The message must name this (key, tensor or bound). */
  names: RegExp;
}

const forge = (family: Family, knobs: ForgeKnobs) => () => forgeModelBytes(family, knobs).bytes;
const meta = (family: Family, key: string, value: GgufValue | null) => forge(family, { metadata: { [key]: value } });
const metas = (family: Family, m: Record<string, GgufValue | null>) => forge(family, { metadata: m });
const f32nan = gv.f32(Number.NaN);

/** Forges a valid model, then overwrites a field of one tensor's table entry in place. */
function patchTensor(family: Family, tensor: string, patch: (view: DataView, offsetField: number, nDims: number) => void) {
  return () => {
    const f = forgeModelBytes(family);
    const at = f.offsetFieldPositions.get(tensor)!;
    const nDims = f.tensors.find((t) => t.name === tensor)!.shape.length;
    const bytes = f.bytes.slice();
    patch(new DataView(bytes.buffer), at, nDims);
    return bytes;
  };
}

function lastTensor(family: Family): string {
  const t = forgeModelBytes(family).tensors;
  return t[t.length - 1].name;
}

const metadataDefects: Defect[] = [
  {
    what: 'architecture is not jepa',
    bytes: meta('ijepa', 'general.architecture', gv.str('llama')),
    code: 'JEPA_ARCH',
    names: /general\.architecture.*'llama'/,
  },
  { what: 'architecture missing', bytes: meta('ijepa', 'general.architecture', null), code: 'JEPA_ARCH', names: /general\.architecture.*missing/ },
  { what: 'schema version 2', bytes: meta('ijepa', 'jepa.schema_version', gv.u32(2)), code: 'JEPA_SCHEMA_VERSION', names: /schema_version.*2/ },
  { what: 'schema version missing', bytes: meta('ijepa', 'jepa.schema_version', null), code: 'JEPA_KEY_MISSING', names: /jepa\.schema_version/ },
  { what: 'unknown family', bytes: meta('ijepa', 'jepa.family', gv.str('dinov4')), code: 'JEPA_FAMILY', names: /'dinov4'/ },
  { what: 'family missing', bytes: meta('ijepa', 'jepa.family', null), code: 'JEPA_KEY_MISSING', names: /jepa\.family/ },
  { what: 'general.name missing', bytes: meta('ijepa', 'general.name', null), code: 'JEPA_KEY_MISSING', names: /general\.name/ },
  { what: 'embed_dim 0', bytes: meta('ijepa', 'jepa.enc.embed_dim', gv.u32(0)), code: 'JEPA_RANGE', names: /embed_dim.*minimum 1/ },
  { what: 'embed_dim 65537', bytes: meta('ijepa', 'jepa.enc.embed_dim', gv.u32(65537)), code: 'JEPA_RANGE', names: /embed_dim.*maximum 65536/ },
  { what: 'n_layer 0', bytes: meta('vjepa', 'jepa.enc.n_layer', gv.u32(0)), code: 'JEPA_RANGE', names: /n_layer.*minimum 1/ },
  { what: 'n_layer 1025', bytes: meta('vjepa', 'jepa.enc.n_layer', gv.u32(1025)), code: 'JEPA_RANGE', names: /n_layer.*maximum 1024/ },
  { what: 'n_head 0', bytes: meta('hfvit', 'jepa.enc.n_head', gv.u32(0)), code: 'JEPA_RANGE', names: /n_head.*minimum 1/ },
  { what: 'n_head 4096', bytes: meta('hfvit', 'jepa.enc.n_head', gv.u32(4096)), code: 'JEPA_RANGE', names: /n_head.*maximum 1024/ },
  {
    what: 'ffn_dim above 2^20',
    bytes: meta('hfvit', 'jepa.enc.ffn_dim', gv.u32(2 ** 20 + 1)),
    code: 'JEPA_RANGE',
    names: /ffn_dim.*maximum 1048576/,
  },
  { what: 'patch_size 0', bytes: meta('ijepa', 'jepa.enc.patch_size', gv.u32(0)), code: 'JEPA_RANGE', names: /patch_size.*minimum 1/ },
  { what: 'patch_size 1025', bytes: meta('ijepa', 'jepa.enc.patch_size', gv.u32(1025)), code: 'JEPA_RANGE', names: /patch_size.*maximum 1024/ },
  { what: 'tubelet_size 0', bytes: meta('vjepa2', 'jepa.enc.tubelet_size', gv.u32(0)), code: 'JEPA_RANGE', names: /tubelet_size.*minimum 1/ },
  { what: 'img_size 65537', bytes: meta('ijepa', 'jepa.enc.img_size', gv.u32(65537)), code: 'JEPA_RANGE', names: /img_size.*maximum 65536/ },
  { what: 'n_frames 0', bytes: meta('vjepa', 'jepa.enc.n_frames', gv.u32(0)), code: 'JEPA_RANGE', names: /n_frames.*minimum 1/ },
  { what: 'in_chans 1025', bytes: meta('ijepa', 'jepa.enc.in_chans', gv.u32(1025)), code: 'JEPA_RANGE', names: /in_chans.*maximum 1024/ },
  { what: 'ln_eps 1.5', bytes: meta('ijepa', 'jepa.enc.ln_eps', gv.f32(1.5)), code: 'JEPA_RANGE', names: /ln_eps.*maximum 1/ },
  { what: 'ln_eps negative', bytes: meta('ijepa', 'jepa.enc.ln_eps', gv.f32(-1e-6)), code: 'JEPA_RANGE', names: /ln_eps.*minimum 0/ },
  { what: 'ln_eps NaN', bytes: meta('ijepa', 'jepa.enc.ln_eps', f32nan), code: 'JEPA_NOT_FINITE', names: /jepa\.enc\.ln_eps.*NaN/ },
  { what: 'pred.ln_eps infinite', bytes: meta('vjepa2', 'jepa.pred.ln_eps', gv.f32(Infinity)), code: 'JEPA_NOT_FINITE', names: /jepa\.pred\.ln_eps/ },
  {
    what: 'rope_theta infinite',
    bytes: meta('vjepa2', 'jepa.enc.rope_theta', gv.f32(Infinity)),
    code: 'JEPA_NOT_FINITE',
    names: /rope_theta.*Infinity/,
  },
  { what: 'rope_theta 0', bytes: meta('vjepa2', 'jepa.enc.rope_theta', gv.f32(0)), code: 'JEPA_RANGE', names: /rope_theta.*minimum 0 \(exclusive\)/ },
  { what: 'rope_theta negative', bytes: meta('levjepa', 'jepa.enc.rope_theta', gv.f32(-10000)), code: 'JEPA_RANGE', names: /rope_theta/ },
  { what: 'pred rope_theta 0', bytes: meta('vjepa2', 'jepa.pred.rope_theta', gv.f32(0)), code: 'JEPA_RANGE', names: /jepa\.pred\.rope_theta/ },
  { what: 'pre.std has a zero', bytes: meta('hfvit', 'jepa.pre.std', gv.f32s([0.2, 0, 0.2])), code: 'JEPA_RANGE', names: /jepa\.pre\.std\[1\] is 0/ },
  {
    what: 'pre.mean has NaN',
    bytes: meta('hfvit', 'jepa.pre.mean', gv.f32s([0.5, Number.NaN, 0.5])),
    code: 'JEPA_NOT_FINITE',
    names: /jepa\.pre\.mean'\[1\]/,
  },
  { what: 'pre.rescale 0', bytes: meta('hfvit', 'jepa.pre.rescale', gv.f32(0)), code: 'JEPA_RANGE', names: /rescale/ },
  { what: 'head.n_classes 0', bytes: meta('vjepa2', 'jepa.head.n_classes', gv.u32(0)), code: 'JEPA_RANGE', names: /n_classes.*minimum 1/ },
  { what: 'n_cls above 2^22', bytes: meta('hfvit', 'jepa.enc.n_cls', gv.u32(2 ** 22 + 1)), code: 'JEPA_RANGE', names: /n_cls.*maximum 4194304/ },
  {
    what: 'n_mask_tokens above 2^22',
    bytes: meta('vjepa2', 'jepa.pred.n_mask_tokens', gv.u32(2 ** 22 + 1)),
    code: 'JEPA_RANGE',
    names: /n_mask_tokens.*4194304/,
  },
  {
    what: 'patch grid above 2^22 tokens',
    bytes: metas('ijepa', { 'jepa.enc.patch_size': gv.u32(1), 'jepa.enc.img_size': gv.u32(4096) }),
    code: 'JEPA_RANGE',
    names: /token count 16777216.*4194304/,
  },
  { what: 'enc.act unknown', bytes: meta('ijepa', 'jepa.enc.act', gv.str('swish')), code: 'JEPA_ENUM', names: /jepa\.enc\.act.*'swish'.*'gelu'/ },
  { what: 'attn_mode unknown', bytes: meta('levjepa', 'jepa.enc.attn_mode', gv.str('causal')), code: 'JEPA_ENUM', names: /attn_mode.*'causal'/ },
  { what: 'pred.act unknown', bytes: meta('vjepa2', 'jepa.pred.act', gv.str('tanh')), code: 'JEPA_ENUM', names: /jepa\.pred\.act/ },
  { what: 'pred.action_act unknown', bytes: meta('lewm', 'jepa.pred.action_act', gv.str('mish')), code: 'JEPA_ENUM', names: /action_act.*'mish'/ },
  { what: 'pred.proj_act unknown', bytes: meta('lewm', 'jepa.pred.proj_act', gv.str('GELU')), code: 'JEPA_ENUM', names: /proj_act.*'GELU'/ },
  {
    what: 'rope layout unknown',
    bytes: meta('vjepa2', 'jepa.enc.rope_freq_layout', gv.str('halfsplit')),
    code: 'JEPA_ENUM',
    names: /rope_freq_layout.*'halfsplit'/,
  },
  { what: 'resample unknown', bytes: meta('hfvit', 'jepa.pre.resample', gv.str('lanczos')), code: 'JEPA_ENUM', names: /resample.*'lanczos'/ },
  { what: 'pos scheme unknown', bytes: meta('ijepa', 'jepa.enc.pos', gv.str('alibi')), code: 'JEPA_ENUM', names: /jepa\.enc\.pos.*'alibi'/ },
  {
    what: 'block_causal on vjepa2',
    bytes: meta('vjepa2', 'jepa.enc.attn_mode', gv.str('block_causal')),
    code: 'JEPA_INVARIANT',
    names: /block_causal.*vjepa2.*no mask/,
  },
  {
    what: 'block_causal on hfvit',
    bytes: meta('hfvit', 'jepa.enc.attn_mode', gv.str('block_causal')),
    code: 'JEPA_INVARIANT',
    names: /block_causal.*hfvit/,
  },
  {
    what: 'embed_dim not divisible by n_head',
    bytes: meta('ijepa', 'jepa.enc.n_head', gv.u32(3)),
    code: 'JEPA_INVARIANT',
    names: /embed_dim 32 is not divisible by jepa\.enc\.n_head 3/,
  },
  {
    what: 'odd head width on a 3-D RoPE family',
    bytes: meta('levjepa', 'jepa.enc.n_head', gv.u32(32)),
    code: 'JEPA_INVARIANT',
    names: /head width 1 must be even/,
  },
  {
    what: 'rope head width below 6',
    bytes: meta('vjepa2', 'jepa.enc.n_head', gv.u32(8)),
    code: 'JEPA_INVARIANT',
    names: /head width 4 .*at least 6/,
  },
  {
    what: 'odd predictor head width',
    bytes: meta('vjepa2', 'jepa.pred.n_head', gv.u32(32)),
    code: 'JEPA_INVARIANT',
    names: /jepa\.pred head width 1/,
  },
  {
    what: 'rope_interpolate without rope_ref_grid',
    bytes: meta('vjepa2_1', 'jepa.enc.rope_ref_grid', null),
    code: 'JEPA_INVARIANT',
    names: /rope_interpolate.*rope_ref_grid is missing/,
  },
  {
    what: 'rope_ref_grid without rope_interpolate',
    bytes: meta('vjepa2_1', 'jepa.enc.rope_interpolate', gv.bool(false)),
    code: 'JEPA_INVARIANT',
    names: /rope_ref_grid is set/,
  },
  {
    what: 'masked predictor without a position grid',
    bytes: meta('vjepa2', 'jepa.pred.grid_size', null),
    code: 'JEPA_KEY_MISSING',
    names: /jepa\.pred\.grid_size.*position grid/,
  },
  {
    what: 'LeWM predictor without action_dim',
    bytes: meta('lewm', 'jepa.pred.action_dim', null),
    code: 'JEPA_KEY_MISSING',
    names: /jepa\.pred\.action_dim/,
  },
  {
    what: 'LeWM predictor without n_frames',
    bytes: meta('lewm', 'jepa.pred.n_frames', null),
    code: 'JEPA_KEY_MISSING',
    names: /jepa\.pred\.n_frames/,
  },
  { what: 'LeWM without a predictor', bytes: meta('lewm', 'jepa.pred.kind', null), code: 'JEPA_KEY_MISSING', names: /jepa\.pred\.kind/ },
  { what: 'encoder key missing', bytes: meta('vjepa', 'jepa.enc.ffn_dim', null), code: 'JEPA_KEY_MISSING', names: /jepa\.enc\.ffn_dim/ },
  {
    what: 'rope key missing on a rope family',
    bytes: meta('levjepa', 'jepa.enc.rope_theta', null),
    code: 'JEPA_KEY_MISSING',
    names: /jepa\.enc\.rope_theta/,
  },
  { what: 'embed_dim stored as i32', bytes: meta('ijepa', 'jepa.enc.embed_dim', gv.i32(32)), code: 'JEPA_KEY_TYPE', names: /embed_dim.*u32.*i32/ },
  { what: 'ln_eps stored as f64', bytes: meta('ijepa', 'jepa.enc.ln_eps', gv.f64(1e-6)), code: 'JEPA_KEY_TYPE', names: /ln_eps.*f32.*f64/ },
  {
    what: 'labels stored as u32 array',
    bytes: meta('vjepa2', 'jepa.head.labels', gv.u32s([1, 2, 3, 4, 5])),
    code: 'JEPA_KEY_TYPE',
    names: /labels.*string\[\].*array of u32/,
  },
  { what: 'layer_scale stored as u8', bytes: meta('hfvit', 'jepa.enc.layer_scale', gv.u8(1)), code: 'JEPA_KEY_TYPE', names: /layer_scale.*bool/ },
  { what: 'unknown jepa key', bytes: meta('ijepa', 'jepa.enc.flash', gv.bool(true)), code: 'JEPA_KEY_UNKNOWN', names: /jepa\.enc\.flash/ },
  {
    what: 'rope key on a sincos family',
    bytes: meta('ijepa', 'jepa.enc.rope_theta', gv.f32(10000)),
    code: 'JEPA_KEY_UNUSED',
    names: /rope_theta.*ijepa/,
  },
  {
    what: 'hierarchy key outside vjepa2_1',
    bytes: meta('vjepa2', 'jepa.enc.n_hier_norm', gv.u32(4)),
    code: 'JEPA_KEY_UNUSED',
    names: /n_hier_norm.*vjepa2/,
  },
  { what: 'n_cls 2 on hfvit', bytes: meta('hfvit', 'jepa.enc.n_cls', gv.u32(2)), code: 'JEPA_INVARIANT', names: /n_cls = 2.*1 CLS/ },
  { what: 'CLS on ijepa', bytes: meta('ijepa', 'jepa.enc.n_cls', gv.u32(1)), code: 'JEPA_INVARIANT', names: /n_cls = 1.*ijepa/ },
  { what: 'registers on ijepa', bytes: meta('ijepa', 'jepa.enc.n_reg', gv.u32(4)), code: 'JEPA_INVARIANT', names: /n_reg = 4.*no register/ },
  { what: 'layer scale on vjepa', bytes: meta('vjepa', 'jepa.enc.layer_scale', gv.bool(true)), code: 'JEPA_INVARIANT', names: /layer_scale.*vjepa/ },
  {
    what: 'img_size not a multiple of patch_size',
    bytes: meta('ijepa', 'jepa.enc.img_size', gv.u32(10)),
    code: 'JEPA_INVARIANT',
    names: /img_size 10 .*patch_size 4/,
  },
  {
    what: 'n_frames not a multiple of tubelet_size',
    bytes: meta('vjepa', 'jepa.enc.n_frames', gv.u32(3)),
    code: 'JEPA_INVARIANT',
    names: /n_frames 3 .*tubelet_size 2/,
  },
  { what: 'image family with 2 frames', bytes: meta('hfvit', 'jepa.enc.n_frames', gv.u32(2)), code: 'JEPA_INVARIANT', names: /image family/ },
  {
    what: 'pos scheme of another family',
    bytes: meta('ijepa', 'jepa.enc.pos', gv.str('learned')),
    code: 'JEPA_INVARIANT',
    names: /'learned'.*'sincos2d'/,
  },
  {
    what: 'interleaved layout on vjepa2',
    bytes: meta('vjepa2', 'jepa.enc.rope_freq_layout', gv.str('interleaved')),
    code: 'JEPA_INVARIANT',
    names: /'interleaved'.*'tiled'/,
  },
  {
    what: 'tiled layout on the vjepa2_1 predictor',
    bytes: meta('vjepa2_1', 'jepa.pred.rope_freq_layout', gv.str('tiled')),
    code: 'JEPA_INVARIANT',
    names: /jepa\.pred\.rope_freq_layout/,
  },
  {
    what: 'labels count differs from n_classes',
    bytes: meta('vjepa2', 'jepa.head.labels', gv.strs(['a', 'b'])),
    code: 'JEPA_INVARIANT',
    names: /labels has 2 .*n_classes is 5/,
  },
  {
    what: 'mean has the wrong channel count',
    bytes: meta('hfvit', 'jepa.pre.mean', gv.f32s([0.5, 0.5])),
    code: 'JEPA_INVARIANT',
    names: /pre\.mean has 2 .*in_chans is 3/,
  },
  { what: 'both resize_short and squash_size', bytes: meta('hfvit', 'jepa.pre.squash_size', gv.u32(8)), code: 'JEPA_INVARIANT', names: /found both/ },
  { what: 'no resize at all', bytes: meta('hfvit', 'jepa.pre.resize_short', null), code: 'JEPA_KEY_MISSING', names: /found neither/ },
  {
    what: 'crop larger than the resize',
    bytes: meta('hfvit', 'jepa.pre.crop', gv.u32(16)),
    code: 'JEPA_INVARIANT',
    names: /crop 16 .*resize size 9/,
  },
  {
    what: 'hier_layers not ending at the last block',
    bytes: meta('vjepa2_1', 'jepa.enc.hier_layers', gv.u32s([0, 0])),
    code: 'JEPA_INVARIANT',
    names: /hier_layers/,
  },
  {
    what: 'hier_layers count differs from n_hier_norm',
    bytes: meta('vjepa2_1', 'jepa.enc.n_hier_norm', gv.u32(3)),
    code: 'JEPA_INVARIANT',
    names: /hier_layers has 2 .*n_hier_norm is 3/,
  },
  {
    what: 'head on a family without one',
    bytes: meta('hfvit', 'jepa.head.kind', gv.str('attentive')),
    code: 'JEPA_INVARIANT',
    names: /hfvit has no head/,
  },
  {
    what: 'action predictor on vjepa2',
    bytes: meta('vjepa2', 'jepa.pred.kind', gv.str('action')),
    code: 'JEPA_INVARIANT',
    names: /'action' but vjepa2 has a masked/,
  },
  {
    what: 'predictor on levjepa',
    bytes: meta('levjepa', 'jepa.pred.kind', gv.str('masked')),
    code: 'JEPA_INVARIANT',
    names: /levjepa has no predictor/,
  },
  {
    what: 'predictor embed_in_dim that is neither D nor n_hier·D',
    bytes: meta('vjepa2_1', 'jepa.pred.embed_in_dim', gv.u32(48)),
    code: 'JEPA_INVARIANT',
    names: /embed_in_dim 48/,
  },
  { what: 'head heads not dividing D', bytes: meta('vjepa2', 'jepa.head.n_head', gv.u32(5)), code: 'JEPA_INVARIANT', names: /jepa\.head\.n_head 5/ },
];

const extentDefects: Defect[] = [
  {
    what: 'truncated download (last tensor cut short)',
    bytes: () => {
      const b = forgeModelBytes('vjepa2').bytes;
      return b.slice(0, b.length - 1000);
    },
    code: 'GGUF_TENSOR_OUT_OF_FILE',
    names: /head\.xattn\.ffn\.fc2\.weight' needs 8192 bytes.*file has/,
  },
  {
    what: 'truncated right after the header',
    bytes: () => {
      const f = forgeModelBytes('ijepa');
      return f.bytes.slice(0, f.offsetFieldPositions.get('enc.norm.bias')! + 40);
    },
    code: 'GGUF_TENSOR_OUT_OF_FILE',
    names: /enc\.patch_embed\.weight.*but the file has/,
  },
  {
    what: 'header promising terabytes on the last tensor',
    bytes: patchTensor('ijepa', 'enc.norm.bias', (v, at) => v.setBigInt64(at - 4 - 8, 1n << 40n, true)),
    code: 'GGUF_TENSOR_OUT_OF_FILE',
    names: /enc\.norm\.bias' needs 4398046511104 bytes/,
  },
  {
    what: 'element count overflowing int64',
    bytes: patchTensor('ijepa', 'enc.patch_embed.weight', (v, at) => {
      v.setBigInt64(at - 4 - 16, 1n << 40n, true);
      v.setBigInt64(at - 4 - 8, 1n << 40n, true);
    }),
    code: 'GGUF_TENSOR_TOO_LARGE',
    names: /enc\.patch_embed\.weight/,
  },
  {
    what: 'lying offset on the last tensor',
    bytes: () => forgeModelBytes('hfvit', { lieOffset: { tensor: lastTensor('hfvit'), offset: 0n } }).bytes,
    code: 'GGUF_TENSOR_OFFSET',
    names: /enc\.norm\.bias.*offset 0, expected/,
  },
  {
    what: 'offset pointing past the end of the file',
    bytes: () => forgeModelBytes('ijepa', { lieOffset: { tensor: 'enc.patch_embed.weight', offset: 1n << 50n } }).bytes,
    code: 'GGUF_TENSOR_OFFSET',
    names: /enc\.patch_embed\.weight.*1125899906842624/,
  },
  {
    what: 'unaligned offset',
    bytes: () => forgeModelBytes('lewm', { lieOffset: { tensor: 'enc.patch_embed.bias', offset: 13n } }).bytes,
    code: 'GGUF_TENSOR_OFFSET',
    names: /enc\.patch_embed\.bias.*13/,
  },
  {
    what: 'truncated inside the metadata',
    bytes: () => forgeModelBytes('vjepa').bytes.slice(0, 1200),
    code: 'GGUF_TRUNCATED',
    names: /needs \d+ bytes at offset/,
  },
];

const dtypeDefects: Defect[] = [
  {
    what: 'norm weight in f16',
    bytes: forge('ijepa', { tensorType: { 'enc.blk.0.ln1.weight': GgmlType.F16 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /enc\.blk\.0\.ln1\.weight.*f16.*must be f32/,
  },
  {
    what: 'bias in f16',
    bytes: forge('vjepa', { tensorType: { 'enc.blk.1.attn.qkv.bias': GgmlType.F16 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /attn\.qkv\.bias/,
  },
  {
    what: 'position table in f16',
    bytes: forge('ijepa', { tensorType: { 'enc.pos_embed': GgmlType.F16 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /enc\.pos_embed/,
  },
  {
    what: 'CLS token in bf16',
    bytes: forge('hfvit', { tensorType: { 'enc.cls_token': GgmlType.BF16 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /enc\.cls_token.*bf16/,
  },
  {
    what: 'register tokens in f16',
    bytes: forge('hfvit', { tensorType: { 'enc.reg_tokens': GgmlType.F16 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /enc\.reg_tokens/,
  },
  {
    what: 'layer scale in f16',
    bytes: forge('hfvit', { tensorType: { 'enc.blk.0.ls1': GgmlType.F16 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /enc\.blk\.0\.ls1/,
  },
  {
    what: 'mask tokens quantized',
    bytes: forge('vjepa2', { tensorType: { 'pred.mask_tokens': GgmlType.Q8_0 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /pred\.mask_tokens.*q8_0/,
  },
  {
    what: 'modality vector in f16',
    bytes: forge('vjepa2_1', { tensorType: { 'enc.img_mod_embed': GgmlType.F16 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /enc\.img_mod_embed/,
  },
  {
    what: 'LeWM predictor positions in f16',
    bytes: forge('lewm', { tensorType: { 'pred.pos_embed': GgmlType.F16 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /pred\.pos_embed/,
  },
  {
    what: 'matmul weight in i32',
    bytes: forge('ijepa', { tensorType: { 'enc.blk.0.attn.qkv.weight': GgmlType.I32 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /attn\.qkv\.weight.*i32.*f32, f16, bf16 or quantized/,
  },
  {
    what: 'matmul weight in f64',
    bytes: forge('ijepa', { tensorType: { 'enc.blk.0.ffn.fc1.weight': GgmlType.F64 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /ffn\.fc1\.weight.*f64/,
  },
  {
    what: 'matmul weight in i8',
    bytes: forge('vjepa2', { tensorType: { 'head.cls.weight': GgmlType.I8 } }),
    code: 'JEPA_TENSOR_DTYPE',
    names: /head\.cls\.weight.*i8/,
  },
  {
    what: 'removed ggml type id 4',
    bytes: patchTensor('ijepa', 'enc.norm.bias', (v, at) => v.setInt32(at - 4, 4, true)),
    code: 'GGUF_BAD_TENSOR_TYPE',
    names: /enc\.norm\.bias.*removed ggml type 4/,
  },
  {
    what: 'removed ggml type id 31 (Q4_0_4_4)',
    bytes: patchTensor('ijepa', 'enc.norm.bias', (v, at) => v.setInt32(at - 4, 31, true)),
    code: 'GGUF_BAD_TENSOR_TYPE',
    names: /q4_0_4_4/,
  },
  {
    what: 'ggml type id out of range',
    bytes: patchTensor('ijepa', 'enc.norm.bias', (v, at) => v.setInt32(at - 4, 43, true)),
    code: 'GGUF_BAD_TENSOR_TYPE',
    names: /43 is not in \[0, 43\)/,
  },
  {
    what: 'negative ggml type id',
    bytes: patchTensor('ijepa', 'enc.norm.bias', (v, at) => v.setInt32(at - 4, -1, true)),
    code: 'GGUF_BAD_TENSOR_TYPE',
    names: /-1/,
  },
  {
    what: 'a tensor the schema does not name',
    bytes: forge('ijepa', { extraTensors: [{ name: 'enc.blk.0.attn.q_norm.weight', type: GgmlType.F32, shape: [16] }] }),
    code: 'JEPA_TENSOR_UNEXPECTED',
    names: /q_norm/,
  },
  {
    what: 'a tensor of a block beyond n_layer',
    bytes: meta('hfvit', 'jepa.enc.n_layer', gv.u32(1)),
    code: 'JEPA_TENSOR_UNEXPECTED',
    names: /enc\.blk\.1\./,
  },
];

const shapeDefects: Defect[] = [
  {
    what: 'fused qkv of the wrong width',
    bytes: forge('ijepa', { tensorShape: { 'enc.blk.0.attn.qkv.weight': [32, 64] } }),
    code: 'JEPA_TENSOR_SHAPE',
    names: /qkv\.weight.*\[32, 64\].*\[32, 96\]/,
  },
  {
    what: 'position table with a missing row',
    bytes: forge('ijepa', { tensorShape: { 'enc.pos_embed': [32, 3] } }),
    code: 'JEPA_TENSOR_SHAPE',
    names: /enc\.pos_embed.*\[32, 4\]/,
  },
  {
    what: 'learned table without the CLS row',
    bytes: forge('hfvit', { tensorShape: { 'enc.pos_embed': [32, 4] } }),
    code: 'JEPA_TENSOR_SHAPE',
    names: /\[32, 5\]/,
  },
  {
    what: 'pred.mask_tokens against n_mask_tokens',
    bytes: meta('vjepa2', 'jepa.pred.n_mask_tokens', gv.u32(10)),
    code: 'JEPA_TENSOR_SHAPE',
    names: /pred\.mask_tokens.*\[32, 10\]/,
  },
  {
    what: 'pred.pos_embed against n_frames',
    bytes: meta('lewm', 'jepa.pred.n_frames', gv.u32(4)),
    code: 'JEPA_TENSOR_SHAPE',
    names: /pred\.pos_embed.*\[32, 4\]/,
  },
  {
    what: 'classifier against n_classes',
    bytes: metas('vjepa2', { 'jepa.head.n_classes': gv.u32(6), 'jepa.head.labels': null }),
    code: 'JEPA_TENSOR_SHAPE',
    names: /head\.cls\.weight.*\[32, 6\]/,
  },
  {
    what: 'vector stored as a 2-D tensor',
    bytes: forge('vjepa', { tensorShape: { 'enc.norm.weight': [32, 1] } }),
    code: 'JEPA_TENSOR_SHAPE',
    names: /enc\.norm\.weight.*\[32, 1\].*\[32\]/,
  },
  {
    what: 'patch embed sized for another tubelet',
    bytes: meta('vjepa', 'jepa.enc.tubelet_size', gv.u32(1)),
    code: 'JEPA_TENSOR_SHAPE',
    names: /enc\.patch_embed\.weight.*\[48, 32\]/,
  },
  {
    what: 'MLP against ffn_dim',
    bytes: meta('levjepa', 'jepa.enc.ffn_dim', gv.u32(128)),
    code: 'JEPA_TENSOR_SHAPE',
    names: /ffn\.fc1\.weight.*\[32, 128\]/,
  },
  {
    what: 'LeWM attention inner width against head_dim',
    bytes: meta('lewm', 'jepa.pred.head_dim', gv.u32(16)),
    code: 'JEPA_TENSOR_SHAPE',
    names: /pred\.blk\.0\.attn\.qkv\.weight/,
  },
  {
    what: 'masked predictor output against out_dim',
    bytes: meta('vjepa2', 'jepa.pred.out_dim', gv.u32(16)),
    code: 'JEPA_TENSOR_SHAPE',
    names: /pred\.proj\.weight/,
  },
];

const requiredDefects: Defect[] = [
  {
    what: 'final norm missing',
    bytes: forge('ijepa', { dropTensors: ['enc.norm.weight'] }),
    code: 'JEPA_TENSOR_MISSING',
    names: /enc\.norm\.weight/,
  },
  {
    what: 'promised predictor block missing',
    bytes: forge('vjepa2', { dropTensors: ['pred.blk.1.attn.qkv.weight'] }),
    code: 'JEPA_TENSOR_MISSING',
    names: /pred\.blk\.1\.attn\.qkv\.weight/,
  },
  {
    what: 'promised head classifier missing',
    bytes: forge('vjepa', { dropTensors: ['head.cls.weight', 'head.cls.bias'] }),
    code: 'JEPA_TENSOR_MISSING',
    names: /head\.cls\.weight/,
  },
  {
    what: 'hierarchy norm missing',
    bytes: forge('vjepa2_1', { dropTensors: ['enc.hier_norm.1.bias'] }),
    code: 'JEPA_TENSOR_MISSING',
    names: /enc\.hier_norm\.1\.bias/,
  },
  {
    what: 'LeWM action encoder missing',
    bytes: forge('lewm', { dropTensors: ['pred.action.fc1.weight'] }),
    code: 'JEPA_TENSOR_MISSING',
    names: /pred\.action\.fc1\.weight/,
  },
  { what: 'layer scale missing', bytes: forge('hfvit', { dropTensors: ['enc.blk.1.ls2'] }), code: 'JEPA_TENSOR_MISSING', names: /enc\.blk\.1\.ls2/ },
  { what: 'CLS token missing', bytes: forge('levjepa', { dropTensors: ['enc.cls_token'] }), code: 'JEPA_TENSOR_MISSING', names: /enc\.cls_token/ },
  {
    what: 'a head promised by metadata with no tensors',
    bytes: forge('vjepa', {
      head: false,
      metadata: {
        'jepa.head.kind': gv.str('attentive'),
        'jepa.head.n_classes': gv.u32(3),
        'jepa.head.depth': gv.u32(0),
        'jepa.head.n_head': gv.u32(2),
        'jepa.head.ffn_dim': gv.u32(64),
        'jepa.head.ln_eps': gv.f32(1e-6),
        'jepa.head.act': gv.str('gelu'),
      },
    }),
    code: 'JEPA_TENSOR_MISSING',
    names: /head\.query/,
  },
];

const u32 = (n: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
};
const containerDefects: Defect[] = [
  {
    what: 'bad magic',
    bytes: () => {
      const b = forgeModelBytes('ijepa').bytes.slice();
      b[0] = 0x47 ^ 0x20;
      return b;
    },
    code: 'GGUF_BAD_MAGIC',
    names: /GGUF/,
  },
  { what: 'file shorter than the magic', bytes: () => new Uint8Array([0x47, 0x47]), code: 'GGUF_BAD_MAGIC', names: /GGUF/ },
  { what: 'version 1', bytes: () => rawGguf({ version: 1 }), code: 'GGUF_BAD_VERSION', names: /version 1/ },
  { what: 'version 4', bytes: () => rawGguf({ version: 4 }), code: 'GGUF_BAD_VERSION', names: /version 4/ },
  { what: 'byte-swapped (big-endian) version', bytes: () => rawGguf({ version: 0x03000000 }), code: 'GGUF_BAD_VERSION', names: /big-endian/ },
  { what: 'negative tensor count', bytes: () => rawGguf({ nTensors: -1n }), code: 'GGUF_BAD_COUNT', names: /tensor count -1/ },
  { what: 'huge key count', bytes: () => rawGguf({ nKv: 1n << 62n }), code: 'GGUF_BAD_COUNT', names: /metadata key count 4611686018427387904/ },
  {
    what: 'value type tag 13',
    bytes: () => rawGguf({ nKv: 1n, kvBytes: Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0x6b, ...u32(13), 0, 0, 0, 0]) }),
    code: 'GGUF_BAD_VALUE_TYPE',
    names: /key 'k'.*tag 13/,
  },
  {
    what: 'array item type tag out of range',
    bytes: () =>
      rawGguf({ nKv: 1n, kvBytes: Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0x6b, ...u32(9), ...u32(0xffffffff), 0, 0, 0, 0, 0, 0, 0, 0]) }),
    code: 'GGUF_BAD_VALUE_TYPE',
    names: /array 'k' item/,
  },
  {
    what: 'array length above the limit',
    bytes: () =>
      rawGguf({ nKv: 1n, kvBytes: Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0x6b, ...u32(9), ...u32(0), 0, 0, 0, 0x41, 0, 0, 0, 0, 0, 0, 0, 0]) }),
    code: 'GGUF_ARRAY_TOO_LONG',
    names: /array 'k' has 1090519040 items.*1073741824/,
  },
  {
    what: 'array longer than the file',
    bytes: () => rawGguf({ nKv: 1n, kvBytes: Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0x6b, ...u32(9), ...u32(6), 0, 0, 1, 0, 0, 0, 0, 0]) }),
    code: 'GGUF_TRUNCATED',
    names: /array 'k' of 65536 f32 items/,
  },
  {
    what: 'string length above the file',
    bytes: () => rawGguf({ nKv: 1n, kvBytes: Uint8Array.from([0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x6b]) }),
    code: 'GGUF_TRUNCATED',
    names: /metadata key #0/,
  },
  {
    what: 'string length above 1 GiB',
    bytes: () => rawGguf({ nKv: 1n, kvBytes: Uint8Array.from([0, 0, 0, 0, 1, 0, 0, 0, 0x6b]) }),
    code: 'GGUF_BAD_STRING',
    names: /above the limit/,
  },
  {
    what: 'invalid UTF-8 in a key',
    bytes: () => rawGguf({ nKv: 1n, kvBytes: Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0xff, ...u32(0), 1]) }),
    code: 'GGUF_BAD_STRING',
    names: /not valid UTF-8/,
  },
  { what: 'empty key', bytes: () => rawGguf({ kvs: [['', gv.u8(1)]] }), code: 'GGUF_BAD_KEY', names: /#0 is empty/ },
  {
    what: 'duplicate key',
    bytes: () =>
      rawGguf({
        kvs: [
          ['a', gv.u8(1)],
          ['a', gv.u8(2)],
        ],
      }),
    code: 'GGUF_DUPLICATE_KEY',
    names: /'a' appears twice/,
  },
  {
    what: 'bool stored as 2',
    bytes: () => rawGguf({ nKv: 1n, kvBytes: Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0, 0x6b, ...u32(7), 2]) }),
    code: 'GGUF_BAD_VALUE_TYPE',
    names: /stored as 2/,
  },
  {
    what: 'arrays nested 9 deep',
    bytes: () => rawGguf({ kvs: [['deep', Array.from({ length: 8 }).reduce<GgufValue>((inner) => gv.arrays([inner as never]), gv.u32s([1]))]] }),
    code: 'GGUF_NESTING_TOO_DEEP',
    names: /deeper than 8/,
  },
  {
    what: 'alignment 0',
    bytes: () => rawGguf({ kvs: [['general.alignment', gv.u32(0)]] }),
    code: 'GGUF_BAD_ALIGNMENT',
    names: /= 0 is not a power of 2/,
  },
  { what: 'alignment 48', bytes: () => rawGguf({ kvs: [['general.alignment', gv.u32(48)]] }), code: 'GGUF_BAD_ALIGNMENT', names: /48/ },
  {
    what: 'alignment stored as u64',
    bytes: () => rawGguf({ kvs: [['general.alignment', gv.u64(32n)]] }),
    code: 'GGUF_BAD_ALIGNMENT',
    names: /must be u32, found u64/,
  },
  {
    what: 'tensor name of 64 bytes',
    bytes: () => rawGguf({ tensors: [{ name: 'x'.repeat(64), shape: [1], type: 0, offset: 0n }], dataBytes: 32 }),
    code: 'GGUF_BAD_TENSOR_NAME',
    names: /1\.\.63 bytes/,
  },
  {
    what: 'empty tensor name',
    bytes: () => rawGguf({ tensors: [{ name: '', shape: [1], type: 0, offset: 0n }], dataBytes: 32 }),
    code: 'GGUF_BAD_TENSOR_NAME',
    names: /tensor #0/,
  },
  {
    what: 'duplicate tensor',
    bytes: () =>
      rawGguf({
        tensors: [
          { name: 't', shape: [1], type: 0, offset: 0n },
          { name: 't', shape: [1], type: 0, offset: 32n },
        ],
        dataBytes: 64,
      }),
    code: 'GGUF_DUPLICATE_TENSOR',
    names: /'t' appears twice/,
  },
  {
    what: 'five dimensions',
    bytes: () => rawGguf({ tensors: [{ name: 't', shape: [1, 1, 1, 1, 1], type: 0, offset: 0n }], dataBytes: 32 }),
    code: 'GGUF_BAD_DIMS',
    names: /5 dims/,
  },
  {
    what: 'negative dimension',
    bytes: () => rawGguf({ tensors: [{ name: 't', shape: [-4], type: 0, offset: 0n }], dataBytes: 32 }),
    code: 'GGUF_BAD_DIMS',
    names: /ne\[0\] = -4/,
  },
  {
    what: 'row not a whole number of blocks',
    bytes: () => rawGguf({ tensors: [{ name: 't', shape: [33], type: GgmlType.Q8_0, offset: 0n }], dataBytes: 64 }),
    code: 'GGUF_BAD_BLOCK',
    names: /ne\[0\] = 33.*block size 32/,
  },
  {
    what: 'data section past the end of the file',
    bytes: () => rawGguf({ tensors: [{ name: 't', shape: [0], type: 0, offset: 0n }], alignment: 1 }),
    code: 'GGUF_TRUNCATED',
    names: /data section/,
  },
];

const groups: [string, Defect[]][] = [
  ['metadata', metadataDefects],
  ['tensor extents', extentDefects],
  ['tensor dtypes', dtypeDefects],
  ['tensor shapes', shapeDefects],
  ['required tensors', requiredDefects],
  ['container', containerDefects],
];

describe('forged defects are refused with a typed error', () => {
  for (const [group, defects] of groups) {
    describe(group, () => {
      it.each(defects.map((d) => [d.what, d] as const))('%s', (_, d) => {
        expectRefused(d.bytes(), d.code, d.names);
      });
      it.each(defects.map((d) => [d.what, d] as const))('%s (plain reader, every value materialised)', (_, d) => {
        expectRefused(d.bytes(), d.code, d.names, true);
      });
    });
  }

  it('covers at least 60 distinct defects', () => {
    const all = groups.flatMap(([, d]) => d);
    expect(new Set(all.map((d) => d.what)).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(60);
  });
});
