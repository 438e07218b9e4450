// The engine's run-time switches as one object: read from the environment once, at the edge (a
// command's start, Model.load when its caller gives none), and passed down with the model. Nothing
// below reads process.env.
import { GraphError } from './errors.js';

export interface RuntimeOptions {
  /** Items in one encoder graph at most (JEPA_MAX_BATCH, 32). */
  maxBatch: number;
  /** Bytes one graph may plan for its activations (JEPA_MAX_GRAPH_MIB, 8192 MiB). */
  maxGraphBytes: number;
  /** Check each new graph against the backend before it runs (JEPA_VALIDATE_GRAPH=0: no). */
  validateGraphs: boolean;
  /** A context's graphs share one compute buffer (JEPA_SHARED_COMPUTE=0: each keeps its own, their sum in memory). */
  sharedCompute: boolean;
  /** The K/V type every context takes, whatever it asks (JEPA_KV_F16, JEPA_KV_F32). */
  kv: 'f16' | 'f32' | undefined;
  /** GPU mul_mat accumulates in F32 (JEPA_GPU_PREC=f16: a measured-upper-bound bench setting). */
  gpuPrecF32: boolean;
  /**
   * JEPA_PANEL: unset = q8_0, q4_0 and q4_K matrices on the CPU use the fastest 8-bit panel kernel at
   * the CPU level (JEPA_CPU) and f32 / f16 matmul weights that level's f32 one; `0` = ggml's own kernels;
   * a quantized kernel's name (`avx512-vnni`, `avx-vnni`, `avx2`; for q8_row also `amx` and `avx512`) = that kernel,
   * with f32 / f16 weights on ggml's and the types that kernel does not take on ggml's (or dequantized).
   */
  panel: { enabled: boolean; kernel: string | undefined };
  /** ggml's CPU repacking of the quantized matrices panels do not take (JEPA_REPACK=0: none). */
  repack: boolean;
  /** This engine's CPU flash-attention kernel (JEPA_FLASH_CPU=0: ggml_flash_attn_ext). */
  flashCpu: boolean;
  /**
   * This engine's CPU nodes (JEPA_CPU_NODES=0: graphs on the CPU are built as on a GPU, from ggml's
   * generic ops only: no panels, none of its GELU, LayerNorm, RoPE and flash nodes), so the GPU's
   * graphs can be checked on a machine without one.
   */
  cpuNodes: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The switches as the environment sets them; a malformed one is refused (BAD_OPTION) naming it. */
export function runtimeFromEnv(env: Env = process.env): RuntimeOptions {
  return {
    maxBatch: positiveInt(env, 'JEPA_MAX_BATCH', 32),
    maxGraphBytes: positiveInt(env, 'JEPA_MAX_GRAPH_MIB', 8192) * 2 ** 20,
    validateGraphs: env.JEPA_VALIDATE_GRAPH !== '0',
    sharedCompute: env.JEPA_SHARED_COMPUTE !== '0',
    kv: kvOf(env),
    gpuPrecF32: env.JEPA_GPU_PREC !== 'f16',
    panel: panelOf(env.JEPA_PANEL),
    repack: env.JEPA_REPACK !== '0',
    flashCpu: env.JEPA_FLASH_CPU !== '0',
    cpuNodes: env.JEPA_CPU_NODES !== '0',
  };
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 1) throw new GraphError('BAD_OPTION', `${name}=${raw} is not a positive integer`);
  return v;
}

function kvOf(env: Env): 'f16' | 'f32' | undefined {
  const f16 = !!env.JEPA_KV_F16 && env.JEPA_KV_F16 !== '0';
  const f32 = !!env.JEPA_KV_F32 && env.JEPA_KV_F32 !== '0';
  if (f16 && f32) throw new GraphError('BAD_OPTION', 'JEPA_KV_F16 and JEPA_KV_F32 are both set');
  return f16 ? 'f16' : f32 ? 'f32' : undefined;
}

function panelOf(raw: string | undefined): RuntimeOptions['panel'] {
  if (raw === undefined || raw === '' || raw === '1') return { enabled: true, kernel: undefined };
  if (raw === '0') return { enabled: false, kernel: undefined };
  return { enabled: true, kernel: raw };
}
