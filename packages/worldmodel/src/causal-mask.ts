// The LeWM predictor's causal mask over time: row t (a query) may attend keys 0..t. Additive F16
// [T, T], zeros and -inf, the form both flash_attn_ext and soft_max_ext take.
const F16_ZERO = 0x0000;
const F16_NEG_INF = 0xfc00;

export function causalMaskF16(steps: number): Uint16Array {
  const mask = new Uint16Array(steps * steps);
  for (let q = 0; q < steps; q++) for (let k = 0; k < steps; k++) mask[q * steps + k] = k <= q ? F16_ZERO : F16_NEG_INF;
  return mask;
}
