// One stream of encoder work: checks the input, splits it into graphs (images or clips of one shape,
// as many per graph as JEPA_MAX_BATCH and the memory budget allow), caches a graph per shape, fills
// host tables and runs it.
import { buildEncoderGraph, prefixTokens, type EncoderGraph } from './encoder-graph.js';
import type { EncoderStage } from './encoder-stages.js';
import { GGML_F32 } from './layers/attention.js';
import { blockCausalMaskBytes, blockCausalMaskF16 } from './block-causal-mask.js';
import { GraphError } from './errors.js';
import type { ModelHandle } from './model-handle.js';
import { patchGrid, patchify, type PatchGeometry } from './patchify.js';
import { ropeTables, signedSin, type RopeTables, type TokenGrid } from './rope3d.js';
import { rope2dTables } from './rope2d.js';
import { interpolatePositions } from './position-interpolation.js';
import { POSITION_SCHEMES, positionPrefixRows, tensorNames, type EncoderHparams, type Rope3dParams } from '@jepa/gguf';
import { Deadline, kvTypeFor, runGraph, type NodeTiming } from './graph-runner.js';
import { ModelContext } from './model-context.js';

export interface EncoderContextOptions {
  device?: string | number;
  threads?: number;
  /** Use the naive mul_mat + soft_max_ext attention (fully F32, N² memory). */
  noFlash?: boolean;
  /** K/V storage on the flash path; default F32 for f32 files, F16 otherwise (env JEPA_KV_F16/F32). */
  kv?: 'f16' | 'f32';
  /** Items (images or clips of one shape) per graph, at most (default JEPA_MAX_BATCH, 32). */
  maxBatch?: number;
  /**
   * A compute deadline for every encode() / profile() call, in ms from when the call starts running
   * (after the earlier calls of this context): a graph still running then stops between two nodes and
   * the call rejects with GraphError TIMEOUT, returning nothing; the context stays usable. Default none.
   */
  timeoutMs?: number;
  /**
   * `final` (default): the encoder's output tokens. `hierarchy` (V-JEPA 2.1): each token is the
   * n_hier hierarchy norms' outputs concatenated, n_hier·D wide — what the g/G predictors read.
   */
  output?: 'final' | 'hierarchy';
  /**
   * Run only the first this many blocks, then the final norm (as DINOv2's
   * get_intermediate_layers(norm=True)); 1..n_layer, default every block.
   */
  layers?: number;
}

/** Options of one encode() call. */
export interface EncodeOptions {
  /** This call's deadline in ms, in place of the context's timeoutMs. */
  timeoutMs?: number;
  /**
   * Encode only these patch ids of a one-item input (Meta's context encoder: the tokens are gathered
   * after the position add, before the blocks); the output has one row per id, in this order.
   */
  keep?: ArrayLike<number>;
}

/** A preprocessed input: [B, C, H, W] images or [B, C, T, H, W] clips, float32, C order. */
export interface EncoderInput {
  data: Float32Array;
  shape: readonly number[];
}

/** cls+mean: the CLS token and the patch mean side by side, 2 · dim wide (DINOv3's linear-probe vector). */
export type PoolMode = 'mean' | 'cls' | 'cls+mean';

export class EncodeOutput {
  constructor(
    /** [batch, nTokens, dim] row-major; prefix tokens (CLS, registers) first in each item. */
    readonly tokens: Float32Array,
    readonly batch: number,
    readonly nTokens: number,
    readonly dim: number,
    readonly prefix: number,
    readonly nCls: number,
  ) {}

  /** Item i's tokens, [nTokens, dim]. */
  item(i: number): Float32Array {
    const size = this.nTokens * this.dim;
    return this.tokens.subarray(i * size, (i + 1) * size);
  }

  /** [batch, dim]: the mean of the patch tokens (never the registers), or the CLS token; [batch, 2 · dim]: both. */
  pool(mode: PoolMode): Float32Array {
    const { batch, dim, nTokens, prefix } = this;
    if (mode !== 'mean' && this.nCls === 0) throw new GraphError('NO_CLS', 'this model has no CLS token; pool with mean');
    const width = mode === 'cls+mean' ? 2 * dim : dim;
    const out = new Float32Array(batch * width);
    for (let b = 0; b < batch; b++) {
      const item = this.item(b);
      if (mode !== 'mean') out.set(item.subarray(0, dim), b * width);
      if (mode === 'cls') continue;
      const at = b * width + (mode === 'cls+mean' ? dim : 0);
      const acc = new Float64Array(dim);
      for (let t = prefix; t < nTokens; t++) for (let d = 0; d < dim; d++) acc[d] += item[t * dim + d]!;
      for (let d = 0; d < dim; d++) out[at + d] = acc[d]! / (nTokens - prefix);
    }
    return out;
  }
}

let maskNoticeShown = false;
let cudaKvNoticeShown = false;

export class EncoderContext extends ModelContext<EncoderGraph> {
  #patches: Float32Array | undefined;
  readonly #options: EncoderContextOptions;

  constructor(model: ModelHandle, options: EncoderContextOptions) {
    if (options.output === 'hierarchy' && model.spec.enc.hierLayers === null)
      throw new GraphError('UNSUPPORTED', `${model.spec.name} has no hierarchy norms: its encoder has only the final output`);
    const n = model.spec.enc.nLayer;
    if (options.layers !== undefined) {
      if (!Number.isInteger(options.layers) || options.layers < 1 || options.layers > n)
        throw new GraphError('BAD_OPTION', `layers ${options.layers} is outside ${model.spec.name}'s 1..${n} encoder blocks`);
      if (options.output === 'hierarchy' && options.layers < n)
        throw new GraphError('UNSUPPORTED', 'hierarchy output reads blocks past a truncation: give layers only with the final output');
    }
    super(model, options.threads);
    this.#options = options;
  }

  /** Encoder blocks this context runs: options.layers, else all of them. */
  get layers(): number {
    return this.#options.layers ?? this.model.spec.enc.nLayer;
  }

  /** Width of an output token: D, or n_hier·D in hierarchy mode. */
  get dim(): number {
    const e = this.model.spec.enc;
    return this.#options.output === 'hierarchy' ? e.hierLayers!.length * e.embedDim : e.embedDim;
  }

  get kvType(): number {
    return kvTypeFor(this.model, this.#options.kv);
  }

  /** Encodes a batch; calls on one context run one after another. */
  encode(input: EncoderInput, options: EncodeOptions = {}): Promise<EncodeOutput> {
    return this.runner.serial(() => this.#encode(input, options));
  }

  /**
   * encode(), computed node by node: the same output, with the wall time of every graph node, for
   * finding where an encoder spends its time (jepa-bench encoder --profile). Slower than encode().
   */
  profile(input: EncoderInput, options: EncodeOptions = {}): Promise<{ output: EncodeOutput; nodes: NodeTiming[] }> {
    return this.runner.serial(async () => {
      const nodes: NodeTiming[] = [];
      const output = await this.#encode(input, options, nodes);
      return { output, nodes };
    });
  }

  /**
   * encode() of one item, keeping every stage: the tokens the first block reads (patch embedding,
   * position, CLS / registers prefixed), each block's output and the final norm, which on the CPU is
   * the same bits as encode()'s tokens. 2 + layers stages, each [tokens, dim].
   */
  encodeStages(input: EncoderInput, options: Pick<EncodeOptions, 'timeoutMs'> = {}): Promise<EncoderStage[]> {
    return this.runner.serial(async () => {
      if (input.shape[0] !== undefined && input.shape[0] !== 1)
        throw new GraphError('BAD_INPUT', `a stage dump takes one item, not ${input.shape[0]}`);
      if (this.#options.output === 'hierarchy') throw new GraphError('UNSUPPORTED', 'a stage dump reads the final output, not hierarchy mode');
      const stages: EncoderStage[] = [];
      await this.#encode(input, options, undefined, stages);
      return stages;
    });
  }

  /** Builds, validates and allocates the graphs an input of this shape needs, without running them. */
  prepare(shape: readonly number[]): Promise<void> {
    return this.runner.serial(async () => {
      const { batch, geometry, image } = this.#geometry({ data: new Float32Array(0), shape }, false);
      const { np, n, patchLen, perGraph } = this.#plan(batch, geometry);
      for (const b of new Set([Math.min(perGraph, batch), batch % perGraph || perGraph])) this.#graph(b, np, patchLen, image, geometry, n);
    });
  }

  #plan(batch: number, geometry: PatchGeometry) {
    const grid = patchGrid(geometry);
    const np = grid.t * grid.h * grid.w;
    const n = prefixTokens(this.model.spec.enc) + np;
    const patchLen = geometry.channels * geometry.tubelet * geometry.patch * geometry.patch;
    // clips batch like stills (windows of one long video share a shape), within JEPA_MAX_GRAPH_MIB
    return { grid, np, n, patchLen, perGraph: this.#batchFor(n, np * patchLen, batch) };
  }

  async #encode(input: EncoderInput, options: EncodeOptions, timings?: NodeTiming[], stages?: EncoderStage[]): Promise<EncodeOutput> {
    const deadline = Deadline.of(options.timeoutMs ?? this.#options.timeoutMs, 'encoder');
    const backend = this.runner.backend;
    const e = this.model.spec.enc;
    const { batch, geometry, image } = this.#geometry(input);
    const { grid, np, n: nAll, patchLen, perGraph } = this.#plan(batch, geometry);
    const prefix = prefixTokens(e);
    const keep = options.keep ? this.#keptIds(options.keep, batch, np, prefix) : null;
    const n = keep ? keep.length : nAll;
    const itemSize = geometry.channels * geometry.frames * geometry.height * geometry.width;
    const dim = this.dim;
    const out = new Float32Array(batch * n * dim);
    const chunks: { start: number; b: number; g: EncoderGraph }[] = [];
    for (let start = 0; start < batch; start += perGraph) {
      const b = Math.min(perGraph, batch - start);
      chunks.push({ start, b, g: this.#graph(b, np, patchLen, image, geometry, nAll, keep?.length, stages !== undefined) });
    }
    if (deadline) deadline.total = chunks.reduce((a, c) => a + c.g.graph.nodeCount, 0);
    for (const { start, b, g } of chunks) {
      this.runner.place(g);
      const patches = this.#patchBuffer(b * np * patchLen);
      for (let i = 0; i < b; i++) {
        const pixels = input.data.subarray((start + i) * itemSize, (start + i + 1) * itemSize);
        patchify(pixels, geometry, patches.subarray(i * np * patchLen, (i + 1) * np * patchLen));
      }
      g.patches.set(patches);
      if (g.posTable) g.posTable.set(this.#resizedPositions(grid.h, grid.w));
      if (g.keepRows && keep) g.keepRows.set(keep);
      if (g.ropeCos && g.ropeSin && e.rope) {
        const tables = this.#ropeTables(e, e.rope, grid, prefix, keep);
        g.ropeCos.set(tables.cos);
        g.ropeSin.set(signedSin(tables));
      }
      if (g.mask) g.mask.set(blockCausalMaskF16({ prefix, slots: grid.t, tokensPerSlot: grid.h * grid.w }));
      await runGraph(g.graph, backend, deadline, timings);
      g.output.get(out.subarray(start * n * dim, (start + b) * n * dim));
      if (stages)
        for (const { name, tensor } of g.stages) {
          const [width, tokens] = tensor.ne;
          stages.push({ name, tokens, dim: width, data: tensor.get(new Float32Array(width * tokens * b)) });
        }
    }
    return new EncodeOutput(out, batch, n, dim, prefix, e.nCls);
  }

  /** The rotation of every token this graph reads: 2-D (DINOv3) from the patch grid, 3-D from the token ids. */
  #ropeTables(e: EncoderHparams, rope: Rope3dParams, grid: TokenGrid, prefix: number, keep: Int32Array | null): RopeTables {
    if (POSITION_SCHEMES[e.pos].rotary === '2d') return rope2dTables({ headDim: e.headDim, rows: grid.h, cols: grid.w, prefix, theta: rope.theta });
    return ropeTables({
      headDim: e.headDim,
      layout: rope.layout,
      grid,
      prefix,
      ...(keep ? { ids: Array.from(keep) } : {}),
      theta: rope.theta,
      ...(rope.interpolate && rope.refGrid !== null ? { interpolateRefGrid: rope.refGrid } : {}),
    });
  }

  #keptIds(ids: ArrayLike<number>, batch: number, np: number, prefix: number): Int32Array {
    if (batch !== 1) throw new GraphError('BAD_INPUT', `a context-only encoding takes one item, not ${batch}`);
    if (prefix > 0) throw new GraphError('UNSUPPORTED', `${this.model.spec.name} has CLS or register tokens: it has no context-only encoding`);
    if (ids.length < 1) throw new GraphError('BAD_INPUT', 'a context-only encoding needs at least one patch id');
    for (const id of Array.from(ids))
      if (!Number.isInteger(id) || id < 0 || id >= np)
        throw new GraphError('OFF_GRID', `context token id ${id} is off this input's ${np} patch tokens`, { part: 'context' });
    return Int32Array.from(ids);
  }

  readonly #positions = new Map<string, Float32Array>();

  /** The trained position table resized to an h x w patch grid (HF ViTs; antialiased for register models). */
  #resizedPositions(h: number, w: number): Float32Array {
    const key = `${h}x${w}`;
    const cached = this.#positions.get(key);
    if (cached) return cached;
    const e = this.model.spec.enc;
    const stored = this.model.weights.get(tensorNames.encPosEmbed);
    const table = stored.get(new Float32Array(stored.nbytes / 4));
    const prefix = positionPrefixRows(e);
    // Dinov2WithRegisters resizes with antialias=True; Dinov2, ViT and I-JEPA without.
    const resized = interpolatePositions(table, e.embedDim, prefix, h, w, e.nReg > 0, e.posInterpOffset);
    this.#positions.set(key, resized);
    return resized;
  }

  #geometry(input: EncoderInput, checkData = true): { batch: number; geometry: PatchGeometry; image: boolean } {
    const spec = this.model.spec;
    const e = spec.enc;
    const s = input.shape;
    if (!(s.length === 4 || s.length === 5) || !s.every((d) => Number.isInteger(d) && d > 0))
      throw new GraphError('BAD_INPUT', `input shape [${s.join(', ')}] is not [B, C, H, W] or [B, C, T, H, W] of positive integers`);
    const [batch, channels] = s as [number, number];
    const frames = s.length === 5 ? s[2]! : 1;
    const height = s[s.length - 2]!;
    const width = s[s.length - 1]!;
    const total = s.reduce((a, b) => a * b, 1);
    if (checkData && input.data.length !== total)
      throw new GraphError('BAD_INPUT', `input holds ${input.data.length} values; shape [${s.join(', ')}] needs ${total}`);
    if (channels !== e.inChans) throw new GraphError('BAD_INPUT', `the model takes ${e.inChans} channels, the input has ${channels}`);
    const image = e.imgTubeletSize !== null && frames === 1;
    const tubelet = image ? e.imgTubeletSize! : e.tubeletSize;
    if (frames % tubelet !== 0) throw new GraphError('BAD_INPUT', `${frames} frames are not a whole number of ${tubelet}-frame tubelets`);
    if (height < e.patchSize || width < e.patchSize)
      throw new GraphError('BAD_INPUT', `a ${width}x${height} input is smaller than one ${e.patchSize}-pixel patch`);
    return { batch, geometry: { channels, frames, height, width, patch: e.patchSize, tubelet }, image };
  }

  /** The host buffer patchify writes into, kept between calls of one size (encodes run one at a time). */
  #patchBuffer(length: number): Float32Array {
    if (this.#patches?.length !== length) this.#patches = new Float32Array(length);
    return this.#patches;
  }

  /** Items per graph: the requested maximum, shrunk until the estimated activations fit the budget. */
  #batchFor(tokens: number, inputFloats: number, batch: number): number {
    const { runtime } = this.model;
    let b = Math.min(batch, this.#options.maxBatch ?? runtime.maxBatch);
    while (b > 1 && this.#estimateBytes(b, tokens, inputFloats) > runtime.maxGraphBytes) b = Math.floor(b / 2);
    return b;
  }

  /** inputFloats: one item's patchified input, held twice (the host's copy and the graph's tensor). */
  #estimateBytes(batch: number, tokens: number, inputFloats: number, stages = false): number {
    const e = this.model.spec.enc;
    const levels = this.#options.output === 'hierarchy' ? 2 * this.dim : 0;
    const kept = stages ? (this.layers + 1) * e.embedDim : 0;
    const activations = 4 * batch * tokens * (8 * e.embedDim + 2 * e.ffnDim + levels + kept);
    const scores = this.#options.noFlash ? 2 * 4 * tokens * tokens * e.nHead * batch : 0;
    const input = 2 * 4 * batch * inputFloats;
    return activations + scores + input;
  }

  #graph(
    batch: number,
    patches: number,
    patchLen: number,
    image: boolean,
    geometry: PatchGeometry,
    tokens: number,
    keep?: number,
    stages = false,
  ): EncoderGraph {
    const key = `${batch}:${geometry.frames}:${geometry.height}:${geometry.width}${keep === undefined ? '' : `:keep${keep}`}${stages ? ':stages' : ''}`;
    return this.runner.graph(
      key,
      (flash) => this.#build(flash, batch, patches, patchLen, image, geometry, tokens, keep, stages),
      !this.#options.noFlash,
    );
  }

  #build(
    flash: boolean,
    batch: number,
    patches: number,
    patchLen: number,
    image: boolean,
    geometry: PatchGeometry,
    tokens: number,
    keep: number | undefined,
    stages: boolean,
  ): EncoderGraph {
    const e = this.model.spec.enc;
    const blockCausal = e.attnMode === 'block_causal';
    const grid = patchGrid(geometry);
    const maskBytes = blockCausal ? blockCausalMaskBytes({ prefix: prefixTokens(e), slots: grid.t, tokensPerSlot: grid.h * grid.w }) : 0;
    const need = this.#estimateBytes(batch, tokens, patches * patchLen, stages) + 2 * maskBytes;
    const { runtime, notice } = this.model;
    if (need > runtime.maxGraphBytes)
      throw new GraphError(
        'OVER_BUDGET',
        `one item of ${tokens} tokens needs about ${Math.ceil(need / 2 ** 20)} MiB of graph memory, over JEPA_MAX_GRAPH_MIB=${runtime.maxGraphBytes / 2 ** 20}`,
      );
    if (maskBytes > 64 * 2 ** 20 && !maskNoticeShown) {
      maskNoticeShown = true;
      notice(`the block-causal mask of ${tokens} tokens takes ${(maskBytes / 2 ** 20).toFixed(0)} MiB (held on the host and in the graph)`);
    }
    const gpu = !this.runner.backend.isCpu;
    if (gpu && this.kvType === GGML_F32 && flash && !cudaKvNoticeShown) {
      cudaKvNoticeShown = true;
      notice('flash attention on the GPU converts K/V to F16 whatever is asked; --no-flash is the F32 path there');
    }
    return buildEncoderGraph(
      e,
      this.model.weights,
      { batch, patches, patchLen, image, ...(keep === undefined ? {} : { keep }) },
      {
        flash,
        kvType: this.kvType,
        blockCausal,
        precF32: gpu && runtime.gpuPrecF32,
        hierarchy: this.#options.output === 'hierarchy',
        layers: this.layers,
        stages,
      },
    );
  }
}
