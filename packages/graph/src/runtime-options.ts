// The engine's environment switches, read once per call site: JEPA_MAX_BATCH, JEPA_MAX_GRAPH_MIB,
// JEPA_KV_F16 / JEPA_KV_F32, JEPA_VALIDATE_GRAPH, JEPA_SHARED_COMPUTE, JEPA_PANEL, JEPA_FLASH_CPU,
// JEPA_CPU_NODES.
import { GraphError } from './errors.js';

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 1) throw new GraphError('BAD_OPTION', `${name}=${raw} is not a positive integer`);
  return v;
}

export const maxBatch = () => positiveInt('JEPA_MAX_BATCH', 32);
export const maxGraphBytes = () => positiveInt('JEPA_MAX_GRAPH_MIB', 8192) * 2 ** 20;
export const validateGraphs = () => process.env.JEPA_VALIDATE_GRAPH !== '0';
/** JEPA_SHARED_COMPUTE=0: each cached graph keeps a compute buffer of its own (their sum stays in memory). */
export const sharedCompute = () => process.env.JEPA_SHARED_COMPUTE !== '0';

/** 'f16' | 'f32' when the environment forces the K/V type, else undefined. */
export function kvOverride(): 'f16' | 'f32' | undefined {
  const f16 = process.env.JEPA_KV_F16 && process.env.JEPA_KV_F16 !== '0';
  const f32 = process.env.JEPA_KV_F32 && process.env.JEPA_KV_F32 !== '0';
  if (f16 && f32) throw new GraphError('BAD_OPTION', 'JEPA_KV_F16 and JEPA_KV_F32 are both set');
  return f16 ? 'f16' : f32 ? 'f32' : undefined;
}

/** GPU mul_mat accumulates in F32 unless JEPA_GPU_PREC=f16 (a measured-upper-bound bench setting). */
export const gpuPrecF32 = () => process.env.JEPA_GPU_PREC !== 'f16';

/**
 * JEPA_PANEL: unset = q8_0, q4_0 and q4_K matrices on the CPU use the fastest 8-bit panel kernel at
 * the CPU level (JEPA_CPU) and f32 / f16 matmul weights that level's f32 one; `0` = ggml's own kernels;
 * a quantized kernel's name (`avx512-vnni`, `avx-vnni`, `avx2`; for q8_row also `amx` and `avx512`) = that kernel,
 * with f32 / f16 weights on ggml's and the types that kernel does not take on ggml's (or dequantized).
 */
export function panelSetting(): { enabled: boolean; kernel: string | undefined } {
  const raw = process.env.JEPA_PANEL;
  if (raw === undefined || raw === '' || raw === '1') return { enabled: true, kernel: undefined };
  if (raw === '0') return { enabled: false, kernel: undefined };
  return { enabled: true, kernel: raw };
}

/** JEPA_FLASH_CPU=0: graphs on the CPU use ggml_flash_attn_ext instead of this engine's kernel. */
export const flashCpuEnabled = () => process.env.JEPA_FLASH_CPU !== '0';

/**
 * JEPA_CPU_NODES=0: graphs on the CPU are built as on a GPU, from ggml's generic ops only (no panels,
 * none of this engine's CPU GELU, LayerNorm, RoPE and flash nodes), so the GPU's graphs can be
 * checked on a machine without one.
 */
export const cpuNodesEnabled = () => process.env.JEPA_CPU_NODES !== '0';
