// The two Dinov2Config switches that change a block's tensors: use_swiglu_ffn (giant) and qkv_bias.
import { ConvertError } from '../errors.js';
import type { BlockNames, BlockVariant } from './blocks.js';
import type { ConfigReader } from './config.js';
import type { TensorMap } from './tensor-map.js';

/** transformers Dinov2SwiGLUFFN's gated width: int(int(D·mlp_ratio)·2/3) rounded up to a multiple of 8. */
export function dinov2SwigluWidth(embedDim: number, mlpRatio: number): number {
  const hidden = Math.trunc(embedDim * mlpRatio);
  return Math.floor((Math.trunc((hidden * 2) / 3) + 7) / 8) * 8;
}

/** The block variant config.json asks for, checked against block 0's tensors (`block0` is its name prefix). */
export function hfBlockVariant(map: TensorMap, c: ConfigReader, n: BlockNames, block0: string): Required<BlockVariant> {
  const swiglu = c.bool('use_swiglu_ffn', false);
  const qkvBias = c.bool('qkv_bias', true);
  if (swiglu && !n.swigluIn)
    throw new ConvertError('CONVERT_BAD_CONFIG', 'config.json: use_swiglu_ffn is true, but this layout has no SwiGLU MLP (Dinov2 only)');
  const weightsIn = `${block0}.${n.swigluIn}.weight`;
  const hasSwiglu = n.swigluIn !== undefined && map.has(weightsIn);
  if (swiglu && !hasSwiglu)
    throw new ConvertError('CONVERT_BAD_CONFIG', `config.json: use_swiglu_ffn is true, but the checkpoint has no '${weightsIn}'`);
  if (!swiglu && hasSwiglu)
    throw new ConvertError('CONVERT_BAD_CONFIG', `config.json: use_swiglu_ffn is false or absent, but the checkpoint has the SwiGLU '${weightsIn}'`);
  if (typeof n.qkv !== 'string') {
    const bias = `${block0}.${n.qkv[0]}.bias`;
    if (map.has(bias) !== qkvBias)
      throw new ConvertError(
        'CONVERT_BAD_CONFIG',
        `config.json: qkv_bias is ${qkvBias}, but the checkpoint ${qkvBias ? 'has no' : 'has a'} '${bias}'`,
      );
  }
  return { swiglu, qkvBias };
}

/** The SwiGLU gated width h from `weights_in` [2h, D], checked against hidden_size · mlp_ratio when the config has it. */
export function swigluWidthOf(map: TensorMap, c: ConfigReader, embedDim: number, weightsIn: string): number {
  const [rows] = map.matrixShape(weightsIn);
  if (rows % 2 !== 0)
    throw new ConvertError('CONVERT_SHAPE_MISMATCH', `'${weightsIn}' has ${rows} rows; the SwiGLU in-projection stacks x1; x2, so an even count`);
  const h = rows / 2;
  if (c.has('mlp_ratio')) {
    const ratio = c.num('mlp_ratio');
    const expected = dinov2SwigluWidth(embedDim, ratio);
    if (expected !== h)
      throw new ConvertError(
        'CONVERT_SHAPE_MISMATCH',
        `config.json: 'mlp_ratio' ${ratio} × ${embedDim} gives a SwiGLU width of ${expected}, but tensor '${weightsIn}' implies ${h}`,
      );
  }
  return h;
}
