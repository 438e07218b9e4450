// The model's tensors as ggml tensors: bound zero-copy to the mapped file on the CPU, uploaded
// into one device buffer elsewhere.
import { buildInfo, createContext, mapFile, q8PanelBytes, q8PanelPack, typeTraits, type Backend, type Buffer, type Context, type Mapping, type Tensor } from '@jepa/native';
import type { GgufTensorInfo, ModelSpec } from '@jepa/gguf';
import { GraphError } from './errors.js';
import { q8PanelSetting } from './runtime-options.js';

const GGML_Q8_0 = 8;
const GGML_I8 = 24;

export interface Weights extends Disposable {
  /** The named tensor; a GraphError names a tensor the file does not have. */
  get(name: string): Tensor;
  has(name: string): boolean;
  /** The CPU panel form of a q8_0 matrix, for Context.q8PanelMulMat; undefined where there is none. */
  q8Panel(name: string): Tensor | undefined;
  /** The panel kernel JEPA_Q8_PANEL names, or undefined for the CPU's fastest. */
  readonly q8PanelKernel: string | undefined;
  /** The tensors live on the CPU backend, so graphs over them run there. */
  readonly onCpu: boolean;
  dispose(): void;
}

/**
 * Quantized matrices go to ggml's repacking buffer on the CPU, where its interleaved kernels run
 * several times faster; ggml decides per type and shape, and what it cannot repack stays mapped.
 * JEPA_REPACK=0 keeps everything mapped.
 */
function repackCandidates(spec: ModelSpec, backend: Backend, panels: ReadonlySet<string>): GgufTensorInfo[] {
  if (!backend.isCpu || process.env.JEPA_REPACK === '0' || !backend.bufferTypes().includes('CPU_REPACK')) return [];
  return [...spec.tensors.values()].filter((t) => t.shape.length === 2 && typeTraits(t.type).isQuantized && !panels.has(t.name));
}

/**
 * q8_0 matrices get this engine's AVX-512 VNNI panel layout on CPUs that have it (ggml has no x86
 * repacking for q8_0); the mapped original stays for every other use. JEPA_Q8_PANEL (runtime-options).
 */
function panelCandidates(spec: ModelSpec, backend: Backend): GgufTensorInfo[] {
  if (!backend.isCpu || !q8PanelSetting().enabled || !buildInfo().q8Panel) return [];
  return [...spec.tensors.values()].filter(
    (t) => t.type === GGML_Q8_0 && t.shape.length === 2 && t.shape[0]! % 32 === 0 && t.shape[1]! % 16 === 0,
  );
}

export function loadWeights(spec: ModelSpec, path: string, backend: Backend): Weights {
  const tensors = new Map<string, Tensor>();
  const panels = new Map<string, Tensor>();
  const contexts: Context[] = [];
  const buffers: Buffer[] = [];
  const mapping: Mapping = mapFile(path);
  const create = (ctx: Context, info: GgufTensorInfo) => {
    const t = ctx.newTensor(info.type, [...info.shape]);
    t.name = info.name.length < 64 ? info.name : info.name.slice(0, 63);
    return t;
  };
  try {
    const dataOffset = spec.header.dataOffset;
    const panelInfos = panelCandidates(spec, backend);
    const candidates = repackCandidates(spec, backend, new Set(panelInfos.map((t) => t.name)));
    if (candidates.length > 0) {
      const ctx = createContext(candidates.length + 2);
      contexts.push(ctx);
      const made = candidates.map((info) => [info, create(ctx, info)] as const);
      buffers.push(ctx.allocate(backend, 'CPU_REPACK'));
      for (const [info, t] of made) {
        if (!t.repacked) continue; // stays mapped below
        t.loadFrom(mapping, info.offset);
        tensors.set(info.name, t);
      }
    }
    const mapped = [...spec.tensors.values()].filter((t) => !tensors.has(t.name));
    const ctx = createContext(mapped.length + 2);
    contexts.push(ctx);
    for (const info of mapped) tensors.set(info.name, create(ctx, info));
    if (mapped.length > 0) {
      if (backend.isCpu) {
        const buffer = mapping.toBuffer(dataOffset, mapping.length - dataOffset);
        buffers.push(buffer);
        for (const info of mapped) tensors.get(info.name)!.bind(buffer, info.offset - dataOffset);
      } else {
        buffers.push(ctx.allocate(backend));
        for (const info of mapped) tensors.get(info.name)!.loadFrom(mapping, info.offset);
      }
    }
    if (panelInfos.length > 0) {
      const ctx = createContext(panelInfos.length + 2);
      contexts.push(ctx);
      const made = panelInfos.map((info) => [info, ctx.newTensor(GGML_I8, [q8PanelBytes(info.shape[1]!, info.shape[0]!)])] as const);
      buffers.push(ctx.allocate(backend));
      for (const [info, panel] of made) {
        q8PanelPack(tensors.get(info.name)!, panel);
        panels.set(info.name, panel);
        mapping.release(info.offset, info.nbytes); // the panel replaces it in memory
      }
    }
  } catch (err) {
    mapping.dispose();
    for (const c of contexts) c.dispose();
    throw err;
  }
  if (!backend.isCpu) mapping.dispose();
  const dispose = () => {
    for (const b of buffers) b.dispose();
    mapping.dispose();
    for (const c of contexts) c.dispose();
  };
  return {
    get(name) {
      const t = tensors.get(name);
      if (!t) throw new GraphError(`the model has no tensor '${name}'`, 'MISSING_TENSOR');
      return t;
    },
    has: (name) => tensors.has(name),
    q8Panel: (name) => panels.get(name),
    q8PanelKernel: q8PanelSetting().kernel,
    onCpu: backend.isCpu,
    dispose,
    [Symbol.dispose]: dispose,
  };
}
