// The model's tensors as ggml tensors: bound zero-copy to the mapped file on the CPU (matmul weights
// repacked for this engine's kernels, the file's pages released behind them), uploaded into one
// device buffer elsewhere.
import {
  buildInfo,
  createContext,
  findNonFinite,
  mapFile,
  panelBytes,
  panelPackAsync,
  quantizeRows,
  typeTraits,
  type Backend,
  type Buffer,
  type Context,
  type Mapping,
  type Tensor,
} from '@jepa/native';
import { expectedTensors, GgmlType, type GgufTensorInfo, type ModelSpec } from '@jepa/gguf';
import { GraphError } from './errors.js';
import type { RuntimeOptions } from './runtime-options.js';

// @jepa/gguf's copy of ggml's type ids (checked against the addon's by a native test), so that importing
// this module does not load the addon
const PANEL_TYPES = new Set<number>([GgmlType.Q8_0, GgmlType.Q4_0, GgmlType.Q4_K]);
const GGML_F32 = GgmlType.F32;
const GGML_F16 = GgmlType.F16;
const GGML_I8 = GgmlType.I8;
/** The q8_row kernels JEPA_PANEL may name. */
const ROWS_KERNELS = new Set(['amx', 'avx512-vnni', 'avx-vnni', 'avx512', 'avx2']);
/** The q8_0 / q4_0 / q4_K kernels JEPA_PANEL may name; a q8_row-only name (amx, avx512) leaves those types on ggml's. */
const BLOCK_KERNELS = new Set(['avx512-vnni', 'avx-vnni', 'avx2']);

export interface Weights extends Disposable {
  /** The named tensor; a GraphError names a tensor the file does not have. */
  get(name: string): Tensor;
  has(name: string): boolean;
  /** The CPU panel form of a matmul weight, for Context.panelMulMat; undefined where there is none. */
  panel(name: string): Tensor | undefined;
  /** The quantized panel kernel JEPA_PANEL names, or undefined for the CPU's fastest. */
  readonly panelKernel: string | undefined;
  /** The q8_row panel kernel JEPA_PANEL names, or undefined for the CPU's fastest. */
  readonly rowsKernel: string | undefined;
  /** Graphs over these tensors run on the CPU backend and may use its own nodes (JEPA_CPU_NODES=0: not). */
  readonly onCpu: boolean;
  /** And this engine's CPU flash-attention kernel among them (JEPA_FLASH_CPU=0: not). */
  readonly flashCpu: boolean;
  /**
   * The bytes the weights hold once loaded: every buffer allocated for them (device, repacked, panels,
   * dequantized rows) and the mapped file bytes still in use (less the ones a panel replaced).
   */
  readonly bytes: number;
  dispose(): void;
}

/**
 * Quantized matrices go to ggml's repacking buffer on the CPU, where its interleaved kernels run
 * several times faster; ggml decides per type and shape, and what it cannot repack stays mapped.
 * JEPA_REPACK=0 keeps everything mapped.
 */
function repackCandidates(spec: ModelSpec, backend: Backend, panels: ReadonlySet<string>, runtime: RuntimeOptions): GgufTensorInfo[] {
  if (!backend.isCpu || !runtime.repack || !backend.bufferTypes().includes('CPU_REPACK')) return [];
  return [...spec.tensors.values()].filter((t) => t.shape.length === 2 && typeTraits(t.type).isQuantized && !panels.has(t.name));
}

/**
 * q8_0, q4_0 and q4_K matrices get this engine's VNNI panel layout on CPUs that have it, in place of
 * ggml's kernels (ggml has no x86 repacking for q8_0 at all), and f32 and f16 matmul weights its
 * AVX-512 one, unless JEPA_PANEL forces a quantized kernel; the mapped original stays readable for any
 * other use. JEPA_PANEL (runtime-options).
 */
function panelCandidates(spec: ModelSpec, backend: Backend, runtime: RuntimeOptions): GgufTensorInfo[] {
  const setting = runtime.panel;
  if (!backend.isCpu || !setting.enabled || !runtime.cpuNodes) return [];
  const info = buildInfo();
  const matmul = matmulNames(spec);
  const wanted = (t: GgufTensorInfo) =>
    t.type === GGML_F32 || t.type === GGML_F16
      ? f32PanelsWanted(runtime) && matmul.has(t.name)
      : t.type === GGML_I8
        ? !!info.panelKernelRows && (setting.kernel === undefined || ROWS_KERNELS.has(setting.kernel)) && matmul.has(t.name)
        : !!info.panelKernel && (setting.kernel === undefined || BLOCK_KERNELS.has(setting.kernel)) && PANEL_TYPES.has(t.type);
  return [...spec.tensors.values()].filter((t) => wanted(t) && t.shape.length === 2 && panelBytesOrNull(t.type, t.shape[1]!, t.shape[0]!) !== null);
}

const f32PanelsWanted = (r: RuntimeOptions) => !!buildInfo().panelKernelF32 && r.panel.enabled && r.panel.kernel === undefined && r.cpuNodes;

function matmulNames(spec: ModelSpec): Set<string> {
  return new Set(
    expectedTensors(spec)
      .filter((t) => t.role === 'matmul')
      .map((t) => t.name),
  );
}

/** The q8_row weights of a file: I8 matmul matrices, each with its `.scale` row scales. */
function rowsWeights(spec: ModelSpec): GgufTensorInfo[] {
  const matmul = matmulNames(spec);
  return [...spec.tensors.values()].filter((t) => t.type === GGML_I8 && matmul.has(t.name));
}

/**
 * q8_row weights without a panel (a GPU, a CPU without AMX or VNNI, JEPA_PANEL=0 or a q8_0-only kernel)
 * are dequantized once into F16 (scale·q), the matrices every backend multiplies; on the CPU they then
 * take the f16 panels where those run.
 */
async function dequantizeRows(
  spec: ModelSpec,
  mapping: Mapping,
  backend: Backend,
  infos: readonly GgufTensorInfo[],
  tensors: Map<string, Tensor>,
  contexts: Context[],
  buffers: Buffer[],
) {
  const ctx = createContext(infos.length + 2);
  contexts.push(ctx);
  const made = infos.map((info) => {
    const t = ctx.newTensor(GGML_F16, [...info.shape]);
    t.name = info.name.length < 64 ? info.name : info.name.slice(0, 63);
    return [info, t] as const;
  });
  buffers.push(ctx.allocate(backend));
  for (const [info, t] of made) {
    const [k, rows] = [info.shape[0]!, info.shape[1]!];
    const scaleInfo = spec.tensors.get(`${info.name}.scale`)!;
    const q = new Int8Array(mapping.read(info.offset, info.nbytes).buffer);
    const scales = new Float32Array(mapping.read(scaleInfo.offset, scaleInfo.nbytes).buffer);
    const values = new Float32Array(rows * k);
    for (let r = 0; r < rows; r++) for (let j = 0; j < k; j++) values[r * k + j] = scales[r]! * q[r * k + j]!;
    t.set(await quantizeRows(GGML_F16, values, rows, k));
    tensors.set(info.name, t);
    await nextTurn();
  }
}

/** Lets the event loop run between two tensors of a load (a server's /health answers meanwhile). */
const nextTurn = () => new Promise<void>((next) => setImmediate(next));

function panelBytesOrNull(type: number, rows: number, k: number): number | null {
  try {
    return panelBytes(type, rows, k);
  } catch {
    return null;
  }
}

export interface WeightsLoadOptions {
  /** Skip the scan for NaN / Inf (Model.load's allowNonFinite). */
  allowNonFinite?: boolean;
  /** Threads of the scan. */
  threads?: number;
}

/**
 * Refuses a file whose weights hold NaN or Inf, naming the first such tensor in file order: every
 * value of f32 / f16 / bf16 tensors and the block scales of quantized ones, read in place from the
 * mapping (natively, on `threads` threads) before anything is bound or uploaded.
 */
export async function checkFinite(spec: ModelSpec, mapping: Mapping, threads = 1): Promise<void> {
  const infos = [...spec.tensors.values()].sort((a, b) => a.offset - b.offset);
  const results = await findNonFinite(
    mapping,
    infos.map((t) => ({ offset: t.offset, nbytes: t.nbytes, type: t.type })),
    threads,
  );
  const bad = results.flatMap((r, i) => (r.status === 'nan' || r.status === 'inf' ? [{ info: infos[i]!, r }] : []));
  if (bad.length === 0) return;
  const { info, r } = bad[0]!;
  if (r.status !== 'nan' && r.status !== 'inf') return;
  const where = `first at element ${r.element}${r.inScale ? `, the scale of its ${typeTraits(info.type).name} block` : ''}`;
  const more = bad.length === 2 ? ', as does 1 more tensor' : bad.length > 2 ? `, as do ${bad.length - 1} more tensors` : '';
  throw new GraphError(
    'NON_FINITE',
    `${info.name} holds ${r.status === 'nan' ? 'NaN' : 'Inf'} (${where})${more}; the file is damaged or was saved from a diverged run; --allow-nonfinite loads it anyway`,
  );
}

export async function loadWeights(
  spec: ModelSpec,
  path: string,
  backend: Backend,
  runtime: RuntimeOptions,
  options: WeightsLoadOptions = {},
): Promise<Weights> {
  const mapping: Mapping = mapFile(path);
  if (!options.allowNonFinite) {
    try {
      await checkFinite(spec, mapping, options.threads ?? 1);
    } catch (err) {
      mapping.dispose();
      throw err;
    }
  }
  return bindWeights(spec, mapping, backend, runtime);
}

async function bindWeights(spec: ModelSpec, mapping: Mapping, backend: Backend, runtime: RuntimeOptions): Promise<Weights> {
  const tensors = new Map<string, Tensor>();
  const panels = new Map<string, Tensor>();
  const contexts: Context[] = [];
  const buffers: Buffer[] = [];
  let released = 0;
  let mappedBytes = 0;
  let mappedBuffer: Buffer | undefined;
  const create = (ctx: Context, info: GgufTensorInfo) => {
    const t = ctx.newTensor(info.type, [...info.shape]);
    t.name = info.name.length < 64 ? info.name : info.name.slice(0, 63);
    return t;
  };
  try {
    const dataOffset = spec.header.dataOffset;
    const panelInfos = panelCandidates(spec, backend, runtime);
    const panelled = new Set(panelInfos.map((t) => t.name));
    const unpanelledRows = rowsWeights(spec).filter((t) => !panelled.has(t.name));
    if (unpanelledRows.length > 0) await dequantizeRows(spec, mapping, backend, unpanelledRows, tensors, contexts, buffers);
    const candidates = repackCandidates(spec, backend, panelled, runtime).filter((t) => t.type !== GGML_I8);
    if (candidates.length > 0) {
      const ctx = createContext(candidates.length + 2);
      contexts.push(ctx);
      const made = candidates.map((info) => [info, create(ctx, info)] as const);
      buffers.push(ctx.allocate(backend, 'CPU_REPACK'));
      for (const [info, t] of made) {
        if (!t.repacked) continue; // stays mapped below
        t.loadFrom(mapping, info.offset);
        tensors.set(info.name, t);
        await nextTurn();
      }
    }
    const mapped = [...spec.tensors.values()].filter((t) => !tensors.has(t.name));
    const ctx = createContext(mapped.length + 2);
    contexts.push(ctx);
    for (const info of mapped) tensors.set(info.name, create(ctx, info));
    if (mapped.length > 0) {
      if (backend.isCpu) {
        const buffer = mapping.toBuffer(dataOffset, mapping.length - dataOffset);
        mappedBytes = mapped.reduce((n, t) => n + t.nbytes, 0);
        mappedBuffer = buffer;
        buffers.push(buffer);
        for (const info of mapped) tensors.get(info.name)!.bind(buffer, info.offset - dataOffset);
      } else {
        buffers.push(ctx.allocate(backend));
        for (const info of mapped) {
          tensors.get(info.name)!.loadFrom(mapping, info.offset);
          await nextTurn();
        }
      }
    }
    if (panelInfos.length > 0) {
      const ctx = createContext(panelInfos.length + 2);
      contexts.push(ctx);
      const made = panelInfos.map((info) => [info, ctx.newTensor(GGML_I8, [panelBytes(info.type, info.shape[1]!, info.shape[0]!)])] as const);
      buffers.push(ctx.allocate(backend));
      for (const [info, panel] of made) {
        await panelPackAsync(tensors.get(info.name)!, panel, info.type === GGML_I8 ? tensors.get(`${info.name}.scale`) : undefined);
        panels.set(info.name, panel);
        mapping.release(info.offset, info.nbytes); // the panel replaces it in memory
        released += info.nbytes;
      }
    }
    const halfPanels =
      backend.isCpu && f32PanelsWanted(runtime) ? unpanelledRows.filter((t) => panelBytesOrNull(GGML_F16, t.shape[1]!, t.shape[0]!) !== null) : [];
    if (halfPanels.length > 0) {
      const ctx = createContext(halfPanels.length + 2);
      contexts.push(ctx);
      const made = halfPanels.map((info) => [info, ctx.newTensor(GGML_I8, [panelBytes(GGML_F16, info.shape[1]!, info.shape[0]!)])] as const);
      buffers.push(ctx.allocate(backend));
      for (const [info, panel] of made) {
        await panelPackAsync(tensors.get(info.name)!, panel);
        panels.set(info.name, panel);
      }
    }
  } catch (err) {
    mapping.dispose();
    for (const c of contexts) c.dispose();
    throw err;
  }
  if (!backend.isCpu) mapping.dispose();
  // the mapped file's buffer counts by the tensors bound to it, the others by their size
  const allocated = buffers.reduce((n, b) => n + (b === mappedBuffer ? 0 : b.size), 0);
  const bytes = allocated + Math.max(0, mappedBytes - released);
  const dispose = () => {
    // each tensor's wrapper holds its context, and so the memory, until a GC: let go of them now
    for (const t of tensors.values()) t.dispose();
    for (const t of panels.values()) t.dispose();
    tensors.clear();
    panels.clear();
    for (const b of buffers) b.dispose();
    mapping.dispose();
    for (const c of contexts) c.dispose();
  };
  return {
    get(name) {
      const t = tensors.get(name);
      if (!t) throw new GraphError('MISSING_TENSOR', `the model has no tensor '${name}'`);
      return t;
    },
    has: (name) => tensors.has(name),
    panel: (name) => panels.get(name),
    panelKernel: BLOCK_KERNELS.has(runtime.panel.kernel ?? '') ? runtime.panel.kernel : undefined,
    rowsKernel: ROWS_KERNELS.has(runtime.panel.kernel ?? '') ? runtime.panel.kernel : undefined,
    onCpu: backend.isCpu && runtime.cpuNodes,
    flashCpu: backend.isCpu && runtime.cpuNodes && runtime.flashCpu,
    bytes,
    dispose,
    [Symbol.dispose]: dispose,
  };
}
