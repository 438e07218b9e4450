// A linear layer (`prefix.weight`, optional `prefix.bias`) and what may follow it in one node: on the
// CPU the panel kernels finish their outputs themselves (bias, GELU(erf), layer scale, residual).
import type { Activation } from '@jepa/gguf';
import { GgmlType } from '@jepa/gguf';
import type { Context, GeluErf, Tensor } from '@jepa/native';
import { GraphError } from '../errors.js';
import type { Weights } from '../weights.js';
import { GGML_F16, GGML_F32 } from './attention.js';

/**
 * The erf of the CPU GELU after a `weightType` product: the rational one (within 3.4e-7, three times
 * faster) where the weight is stored below 16-bit floats, so its products already carry far larger errors.
 */
function geluErfAfter(weightType: number): GeluErf {
  return weightType === GGML_F32 || weightType === GGML_F16 ? 'libm' : 'rational';
}

/** onCpu: the graph runs on the CPU backend, where GELU(erf) has a vectorised node with the erf `erf`. */
export function activation(ctx: Context, x: Tensor, act: Activation, onCpu: boolean, erf: GeluErf = 'libm'): Tensor {
  switch (act) {
    case 'gelu':
      return onCpu ? ctx.geluErfCpu(x, erf) : ctx.geluErf(x);
    case 'gelu_tanh':
      return onCpu ? geluTanhF32(ctx, x) : ctx.gelu(x);
    case 'silu':
      return ctx.silu(x);
    default:
      throw new GraphError('UNSUPPORTED', `activation '${act}' is not supported by this engine`);
  }
}

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/**
 * The tanh GELU in f32 nodes, 0.5·x + 0.5·x·tanh(√(2/π)·(x + 0.044715·x³)): ggml's CPU gelu reads an
 * f16 table (errors near 1e-3, an f16 model's, in an f32 one; ViViT's gelu_fast was 3× closer to the
 * parity bound with it).
 */
function geluTanhF32(ctx: Context, x: Tensor): Tensor {
  const cube = ctx.mul(x, ctx.sqr(x));
  const inner = ctx.add(ctx.scale(x, SQRT_2_OVER_PI), ctx.scale(cube, SQRT_2_OVER_PI * 0.044715));
  const half = ctx.scale(x, 0.5);
  return ctx.add(half, ctx.mul(half, ctx.tanh(inner)));
}

/** What follows a linear layer: an activation, a layer scale, a residual (added last: residual + y). */
export interface LinearThen {
  act?: Activation;
  scale?: Tensor | null;
  residual?: Tensor | null;
}

export function linear(ctx: Context, input: Tensor, w: Weights, prefix: string, precF32 = false, then: LinearThen = {}): Tensor {
  const weight = w.get(`${prefix}.weight`);
  const panel = w.panel(`${prefix}.weight`);
  // A q8_row (I8) matrix has no ggml product: its panel is the only way, so x is made contiguous for it.
  const x = panel && !input.isContiguous && weight.type === GgmlType.I8 ? ctx.cont(input) : input;
  const bias = w.has(`${prefix}.bias`) ? w.get(`${prefix}.bias`) : null;
  const erf = geluErfAfter(weight.type);
  let y: Tensor;
  // The panel kernels want contiguous activations (a strided view keeps ggml's own) and finish their
  // outputs themselves: bias, GELU(erf), layer scale, residual, in the order of the nodes they replace.
  if (panel && x.isContiguous) {
    const kernel = weight.type === GGML_F32 || weight.type === GGML_F16 ? undefined : weight.type === GgmlType.I8 ? w.rowsKernel : w.panelKernel;
    const fusable = (then.act === undefined || then.act === 'gelu') && (!then.residual || then.residual.isContiguous);
    if (fusable)
      return ctx.panelMulMat(panel, x, weight.ne[1], weight.type, kernel, {
        bias,
        gelu: then.act === 'gelu',
        erf,
        scale: then.scale,
        add: then.residual,
      });
    y = ctx.panelMulMat(panel, x, weight.ne[1], weight.type, kernel, { bias });
  } else {
    y = ctx.mulMat(weight, x);
    if (precF32) y.setPrecF32();
    if (bias) y = ctx.add(y, bias);
  }
  if (then.act) y = activation(ctx, y, then.act, w.onCpu, erf);
  if (then.scale) y = ctx.mul(y, then.scale);
  return then.residual ? ctx.add(then.residual, y) : y;
}
