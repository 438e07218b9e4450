// The shapes of the objects the addon hands out. Each wraps one ggml resource; `dispose()` drops
// this handle's reference, and an in-flight compute keeps what it uses alive until it finishes.

/** ggml dimension order: ne[0] is the fastest-varying (a row), ne[3] the outermost. */
export type Dims = [number, number, number, number];

/**
 * The erf of a CPU GELU(erf): glibc's erff ('libm', in libmvec's lanes where the build found them), or
 * the engine's rational one ('rational': within 3.4e-7 of erf, three times faster, the same bits at
 * every CPU level), for the GELU after a weight stored below 16-bit floats.
 */
export type GeluErf = 'libm' | 'rational';

/** What follows a panel product, in this order: + bias, GELU(erf), · scale, then add + result. */
export interface PanelEpilogue {
  /** F32 [rows]. */
  bias?: Tensor | null;
  gelu?: boolean;
  /** The GELU's erf; 'libm' when absent. */
  erf?: GeluErf;
  /** F32 [rows] (a layer scale). */
  scale?: Tensor | null;
  /** F32, contiguous, the result's shape (a residual). */
  add?: Tensor | null;
}

export interface Tensor extends Disposable {
  /** ggml type id (see `typeByName`). */
  readonly type: number;
  readonly ne: Dims;
  /** Byte strides per dimension. */
  readonly nb: Dims;
  readonly nbytes: number;
  name: string;
  /** The op that produces it (`NONE` for leaves, `MUL_MAT`, `VIEW`, ...). */
  readonly op: string;
  readonly isContiguous: boolean;
  /** Whether memory is attached (a bound buffer, an allocated context or graph). */
  readonly hasData: boolean;
  /** The name of the buffer type holding it (`CPU`, `CPU_REPACK`, `CUDA0`), or null. */
  readonly bufferType: string | null;
  /** In a `CPU_REPACK` buffer: whether ggml has an interleaved layout for its type and shape (else it must not be written there). */
  readonly repacked: boolean;
  /** Marks a graph input: the graph allocator gives it its own memory, never reused. */
  setInput(): void;
  /** Marks a graph output: its memory is not reused by later nodes. */
  setOutput(): void;
  /** Asks for F32 accumulation (mul_mat, flash_attn_ext); a no-op on the CPU. */
  setPrecF32(): void;
  /** Copies the bytes of `data` into the tensor at `byteOffset`; no intermediate copy. */
  set(data: ArrayBufferView, byteOffset?: number): void;
  /** Copies the tensor's bytes from `byteOffset` into `out` and returns it. */
  get<T extends ArrayBufferView>(out: T, byteOffset?: number): T;
  /** Places the tensor at `byteOffset` of an existing buffer (zero-copy weights). */
  bind(buffer: Buffer, byteOffset: number): void;
  /** Copies the tensor's bytes from a mapped file at `fileOffset` (weight upload to a device). */
  loadFrom(mapping: Mapping, fileOffset: number): void;
  dispose(): void;
}

export interface Buffer extends Disposable {
  readonly size: number;
  readonly name: string;
  readonly isHost: boolean;
  clear(value?: number): void;
  dispose(): void;
}

export interface Mapping extends Disposable {
  readonly length: number;
  readonly path: string;
  /** A CPU buffer over bytes [offset, offset + length) of the file, zero-copy. */
  toBuffer(offset: number, length: number): Buffer;
  /** A copy of bytes [offset, offset + length): headers and checks, not weights. */
  read(offset: number, length: number): Uint8Array;
  /** Lets the kernel drop the resident pages of [offset, offset + length); they stay readable. */
  release(offset: number, length: number): void;
  dispose(): void;
}

export interface Backend extends Disposable {
  readonly name: string;
  readonly deviceName: string;
  readonly isCpu: boolean;
  /** Compute threads (CPU backends). */
  threads: number;
  /** Bytes of the compute buffer that graphs allocated with `{ shared: true }` take turns in (0 before the first). */
  readonly sharedComputeBytes: number;
  supportsOp(tensor: Tensor): boolean;
  /** The device's buffer types: its default first, then extras (e.g. `CPU_REPACK`). */
  bufferTypes(): string[];
  allocBuffer(bytes: number, bufferType?: string): Buffer;
  dispose(): void;
}

export interface Graph extends Disposable {
  readonly nodeCount: number;
  readonly busy: boolean;
  /** One description per node: `'name' OP type [ne0, ne1, ne2, ne3]`. */
  nodes(): string[];
  /** Each node's op as ggml names it (`MUL_MAT`, `FLASH_ATTN_EXT`, `GELU_ERF`, `CUSTOM`, …). */
  ops(): string[];
  /** What the backend cannot run or read, one line each; empty when the graph is runnable. */
  unsupported(backend: Backend): string[];
  /** Throws `NativeError` code `UNSUPPORTED_OP` naming the first node the backend refuses. */
  validate(backend: Backend): void;
  /** Whether its tensors have memory now: allocated, and not displaced from the shared buffer since. */
  readonly placed: boolean;
  /**
   * Gives every tensor without memory a place in a compute buffer; returns the buffer's bytes. The
   * graph's own buffer by default; with `shared`, the backend's one buffer that graphs take turns in
   * (it grows to the largest of them, where own buffers hold their sum): placing this graph takes
   * the memory of the one placed before, whose `placed` turns false and whose tensors read as
   * having no data until it is allocated again. Inputs are set after allocating.
   */
  allocate(backend: Backend, options?: AllocateOptions): number;
  /**
   * Runs the graph off the main thread. With `timeoutMs`, a graph still running that long after this
   * call stops between two nodes (ggml's abort callback; on a backend without one, e.g. CUDA, it is
   * checked only before the graph starts) and the promise rejects with NativeError `DEADLINE`, its
   * `nodesDone` and `nodeCount` set; the graph's outputs are then partial, and the graph stays usable.
   */
  compute(backend: Backend, options?: ComputeOptions): Promise<void>;
  /**
   * Computes the graph one node at a time and resolves to each node's wall-clock ms, index for index
   * with nodes(). Same results as compute(); slower overall (every node is its own dispatch).
   */
  profile(backend: Backend, options?: ComputeOptions): Promise<number[]>;
  dispose(): void;
}

export interface AllocateOptions {
  /** Place the graph in the backend's shared compute buffer (see Graph.allocate). */
  shared?: boolean;
}

export interface ComputeOptions {
  /** Abort the graph between nodes once this many ms have passed since the call (>= 0). */
  timeoutMs?: number;
}

/** One entry of a non-finite scan: where a tensor's bytes are, and their ggml type. */
export interface NonFiniteQuery {
  /** Byte offset in the mapping. */
  offset: number;
  nbytes: number;
  type: number;
}

/**
 * What the scan found in one entry: all finite; a type it cannot read (integers, types without f16 /
 * f32 scales it knows); or the first NaN / Inf: `element` is its index, or for a quantized type
 * (`inScale`) the first element of the block whose scale (d, dmin, m) is not finite.
 */
export type NonFiniteResult = { status: 'finite' } | { status: 'unchecked' } | { status: 'nan' | 'inf'; element: number; inScale: boolean };

/** A ggml context: tensor metadata, and the ops that build graphs from tensors. */
export interface Context extends Disposable {
  readonly tensorCapacity: number;
  readonly tensorCount: number;
  newTensor(type: number, shape: number[]): Tensor;
  /** One buffer of the backend (or the named buffer type) for every tensor still without memory. */
  allocate(backend: Backend, bufferType?: string): Buffer;
  buildGraph(outputs: Tensor[]): Graph;
  dispose(): void;

  /** a [K, M, ...], b [K, N, ...] -> [M, N, ...]; b's outer dims broadcast over a's. */
  mulMat(a: Tensor, b: Tensor): Tensor;
  add(a: Tensor, b: Tensor): Tensor;
  sub(a: Tensor, b: Tensor): Tensor;
  mul(a: Tensor, b: Tensor): Tensor;
  div(a: Tensor, b: Tensor): Tensor;
  scale(a: Tensor, s: number): Tensor;
  /** (x - mean) / sqrt(var + eps) over each row; no affine part. */
  norm(a: Tensor, eps: number): Tensor;
  gelu(a: Tensor): Tensor;
  geluErf(a: Tensor): Tensor;
  /**
   * geluErf for graphs that run on the CPU backend, in SIMD lanes, with the erf `erf` ('libm' when
   * absent; see BuildInfo.geluErfCpu and geluErfCpuRational). Contiguous F32 input; a GPU backend
   * refuses the node.
   */
  geluErfCpu(a: Tensor, erf?: GeluErf): Tensor;
  /**
   * norm(x, eps)·w + b per row, as norm, mul and add compute it, in one CPU node (mean and variance in
   * double). x contiguous F32; w, b F32 [x.ne[0]]. A GPU refuses the node.
   */
  layerNormCpu(x: Tensor, w: Tensor, b: Tensor, eps: number): Tensor;
  /**
   * x·cos + swap(x)·sin, swap exchanging the members of each pair of values, in one CPU node: x F32
   * [hd, heads, tokens, B] with contiguous rows (a view is fine), cos/sin F32 [hd, 1, tokens, 1]. The
   * result is contiguous. A GPU refuses the node.
   */
  ropePairsCpu(x: Tensor, cos: Tensor, sin: Tensor): Tensor;
  /**
   * ggml_mul_mat(w, x) for an f32, f16, q8_0, q4_0 or q4_K matrix w (ggml type `type`) of `rows` rows on
   * the CPU backend, from w repacked by panelPack into `panel`. Quantized w: x's rows are quantized to
   * 8 bits per 32-value block as ggml's q8_0 does, each block's products are summed exactly in int32
   * (VNNI, or vpmaddubsw on plain AVX2); `kernel` picks one of the CPU's kernels (default: the fastest, BuildInfo.panelKernel),
   * all giving the same bits. q8_row w (I8 with per-row scales, type I8): each token quantized once to
   * u8 with its own scale and zero point, one exact int32 dot per output ('amx', 'avx512-vnni', 'avx-vnni',
   * 'avx512' or 'avx2', BuildInfo.panelKernelRows, the same bits). f32 / f16 w: f32 fma chains over k per output (kernel 'avx512',
   * BuildInfo.panelKernelF32). x: contiguous F32 with ne0 = w's row length. `then` is applied to
   * each output in the node, with the bits of the nodes it replaces. A GPU refuses the node.
   */
  panelMulMat(panel: Tensor, x: Tensor, rows: number, type: number, kernel?: string, then?: PanelEpilogue): Tensor;
  silu(a: Tensor): Tensor;
  /** silu(x1) * x2 per row, [x1; x2] the two halves of ne0 (ggml_swiglu): [2h, ...] -> [h, ...]. Contiguous rows. */
  swiglu(a: Tensor): Tensor;
  tanh(a: Tensor): Tensor;
  exp(a: Tensor): Tensor;
  sqr(a: Tensor): Tensor;
  sqrt(a: Tensor): Tensor;
  /** Mean of each row: [n, ...] -> [1, ...]. */
  mean(a: Tensor): Tensor;
  sumRows(a: Tensor): Tensor;
  clamp(a: Tensor, min: number, max: number): Tensor;
  /** softmax(a * scale + mask) over rows; mask f16/f32 [ne0, >=ne1, broadcast, broadcast]. */
  softMaxExt(a: Tensor, mask: Tensor | null, scale: number, maxBias?: number): Tensor;
  /**
   * q [d, nQ, heads, B], k [d, nKV, headsKV, B], v [dv, nKV, headsKV, B], mask f16 [nKV, >=nQ, ...]
   * -> [dv, heads, nQ, B] (note the permuted result).
   */
  flashAttnExt(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | null, scale: number, maxBias?: number, logitSoftcap?: number): Tensor;
  /**
   * flashAttnExt's operands and result on this engine's CPU kernel (BuildInfo.flashAttnCpu): per
   * head, blocks of 48 queries get an exact softmax over all keys and P·V as fma chains. q, k, v f32
   * with contiguous rows; dv % 16 == 0; kvF16 rounds k and v through f16 inside (the F16 K/V
   * policy). The mask is key-major: F16 [>= nQ, nKV, ...], i.e. cont(transpose(flashAttnExt's
   * mask)). A GPU refuses the node.
   */
  flashAttnCpu(q: Tensor, k: Tensor, v: Tensor, maskByKey: Tensor | null, scale: number, kvF16?: boolean): Tensor;
  concat(a: Tensor, b: Tensor, dim: number): Tensor;
  /** Rows of a picked by i32 ids b [n, a.ne[2], a.ne[3]]. */
  getRows(a: Tensor, rows: Tensor): Tensor;
  roll(a: Tensor, shift0: number, shift1?: number, shift2?: number, shift3?: number): Tensor;
  /** A contiguous copy, optionally reshaped. */
  cont(a: Tensor, shape?: number[]): Tensor;
  reshape(a: Tensor, shape: number[]): Tensor;
  /** strides are nb[1..3] in bytes; contiguous strides when omitted. */
  view(a: Tensor, shape: number[], strides?: [number, number, number] | null, byteOffset?: number): Tensor;
  /** Axis i of a becomes axis `axes[i]` of the result (ggml semantics). */
  permute(a: Tensor, axis0: number, axis1: number, axis2: number, axis3: number): Tensor;
  transpose(a: Tensor): Tensor;
  /** Copies a into b (converting type); the result is a view of b. */
  cpy(a: Tensor, b: Tensor): Tensor;
  cast(a: Tensor, type: number): Tensor;
  repeat(a: Tensor, like: Tensor): Tensor;
}

export interface DeviceInfo {
  name: string;
  description: string;
  type: 'cpu' | 'gpu' | 'igpu' | 'accel';
  memoryFree: number;
  memoryTotal: number;
}

export interface BuildInfo {
  ggmlVersion: string;
  /** The pinned llama.cpp commit the ggml sources come from. */
  ggmlCommit: string;
  cuda: boolean;
  /** Built with -march=native for the build machine. */
  nativeCpu: boolean;
  /** The portable build: ggml's CPU backend variants loaded at run time, the best this CPU runs. */
  portable: boolean;
  /** The ggml CPU variant in use ('haswell', 'zen4', ...; JEPA_CPU_VARIANT forces one), or 'native' / 'generic' in a build linked for one CPU level. */
  cpuVariant: string;
  /** The features the ggml CPU backend in use was compiled for (avx2, avx512, avx512_vnni, ...). */
  cpu: Record<string, boolean>;
  /** The erff behind Context.geluErfCpu with 'libm': 'libmvec-avx512', 'libmvec-avx2' or 'scalar'. */
  geluErfCpu: string;
  /** The lanes of Context.geluErfCpu with 'rational': 'rational-avx512', 'rational-avx2' or 'rational-scalar' (the same bits). */
  geluErfCpuRational: string;
  /** The level this engine's own CPU kernels run at: 'avx512', 'avx2' or 'scalar' (JEPA_CPU=avx2 forces a lower one). */
  cpuLevel: 'avx512' | 'avx2' | 'scalar';
  /** Whether this engine's kernels may use VNNI (AVX-512 VNNI, AVX-VNNI, AMX): false under JEPA_CPU_VNNI=0. */
  cpuVnni: boolean;
  /** The fastest kernel of Context.panelMulMat for q8_0 / q4_0 / q4_K this CPU runs ('avx512-vnni', 'avx-vnni', 'avx2'), or null. */
  panelKernel: string | null;
  /** The kernel of Context.flashAttnCpu at this CPU level and build ('avx512', 'avx2'), or null. */
  flashAttnCpu: string | null;
  /** The kernel of Context.panelMulMat for f32 and f16 weights at this CPU level ('avx512', 'avx2'), or null. */
  panelKernelF32: string | null;
  /** The fastest kernel of Context.panelMulMat for q8_row (I8 with row scales) weights: 'amx', 'avx512-vnni', 'avx-vnni', 'avx512', 'avx2', or null. */
  panelKernelRows: string | null;
  /** Every q8_row kernel this CPU runs, fastest first (each gives the same bits). */
  panelKernelsRows: string[];
  typeCount: number;
}

export interface TypeTraits {
  name: string;
  blockSize: number;
  typeSize: number;
  isQuantized: boolean;
  canDequantize: boolean;
  requiresImatrix: boolean;
}

export interface GgufInfoEntry {
  type: string;
  arrayType?: string;
  value: unknown;
}

export interface GgufInfo {
  version: number;
  alignment: number;
  dataOffset: number;
  kv: Record<string, GgufInfoEntry>;
  tensors: { name: string; type: number; offset: number; nbytes: number; ne: Dims }[];
}

/** A crop window of a resize's output, in output pixels. */
export interface ResampleCrop {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * An antialiased resize (Pillow 9.4's 8-bit ImagingResample) of an HWC uint8 image to
 * outWidth x outHeight, of which only `crop` (default: all of it) is computed. channels 1 is
 * gray (written as R = G = B), 4 is RGBA/RGBX (the 4th byte ignored); the result is RGB.
 */
export interface ResampleJob {
  src: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  /**
   * EXIF orientation 1..8 of the stored pixels (default 1): they are read as the upright image
   * Pillow's ImageOps.exif_transpose makes of them, with no copy; outWidth, outHeight and crop are
   * in upright coordinates (5..8 swap width and height).
   */
  orientation?: number;
  outWidth: number;
  outHeight: number;
  filter: 'bilinear' | 'bicubic';
  crop?: ResampleCrop;
}

export interface Addon {
  Backend: new (deviceName: string, threads: number) => Backend;
  Context: new (maxTensors: number) => Context;
  Mapping: new (path: string) => Mapping;
  /** Made by the addon only (Context.newTensor, Backend.allocBuffer, Context.graph): never constructed from JavaScript. */
  Tensor: abstract new () => Tensor;
  Buffer: abstract new () => Buffer;
  Graph: abstract new () => Graph;
  devices(): DeviceInfo[];
  buildInfo(): BuildInfo;
  typeTraits(type: number): TypeTraits;
  quantize(type: number, src: Float32Array, nrows: number, nPerRow: number): Promise<Uint8Array>;
  dequantize(type: number, bytes: ArrayBufferView, n: number): Float32Array;
  panelPack(src: Tensor, dst: Tensor, scales?: Tensor): void;
  panelPackAsync(src: Tensor, dst: Tensor, scales?: Tensor): Promise<void>;
  trimHeap(): boolean;
  panelBytes(type: number, rows: number, k: number): number;
  ggufInfo(path: string): GgufInfo;
  resampleU8(job: ResampleJob): Promise<Uint8Array>;
  resampleU8Sync(job: ResampleJob): Uint8Array;
  resampleNormalize(job: ResampleJob, tables: Float32Array, out: Float32Array, channelStride: number, offset: number): Promise<void>;
  resampleNormalizeSync(job: ResampleJob, tables: Float32Array, out: Float32Array, channelStride: number, offset: number): void;
  resampleKernels(): string[];
  findNonFinite(mapping: Mapping, entries: NonFiniteQuery[], threads?: number): Promise<NonFiniteResult[]>;
  /** The addon throws `new make(message, code)` for each failure (nativeErrorFromAddon). */
  setErrorClass(make: (message: string, code: string) => Error): void;
}
