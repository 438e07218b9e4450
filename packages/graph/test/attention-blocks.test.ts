// Flash attention split into blocks of queries on the CPU (layers/attention.ts): the same bits as one
// node on every CPU path (this engine's kernel with F32 and F16 K/V, ggml's with JEPA_FLASH_CPU=0,
// with and without a mask, q a strided view as the encoder gives it), and a compute deadline that
// stops a split attention part way, where one big node runs to its end.
import { type Backend, buildInfo, createContext, NativeError, openBackend, quantizeRows, type Tensor } from '@jepa/native';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTENTION_NODE_WORK, attention, GGML_F16, GGML_F32, queryBlocks } from '../src/layers/attention.js';

const cpu: Backend = openBackend({ device: 'cpu', threads: 2 });
afterAll(() => cpu.dispose());

function seeded(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 4 - 2;
  }
  return out;
}

/** A block-causal pattern of 50-token blocks as F16 bits: -inf where the key's block is after the query's. */
async function maskBits(n: number): Promise<Uint16Array> {
  const m = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m[i * n + j] = Math.floor(j / 50) > Math.floor(i / 50) ? -Infinity : 0;
  const bytes = await quantizeRows(GGML_F16, m, 1, m.length);
  return new Uint16Array(bytes.buffer, bytes.byteOffset, m.length);
}

interface Case {
  hd: number;
  n: number;
  heads: number;
  kvType: number;
  masked: boolean;
  maxNodeWork: number;
  /** This engine's CPU kernel (default) or ggml's (false: what JEPA_FLASH_CPU=0 gives). */
  cpuFlash?: boolean;
}

/** Runs one attention of q, k, v laid out [hd, heads, tokens] and permuted to [hd, tokens, heads] (as the encoder's heads()). */
async function run(c: Case, timeoutMs?: number): Promise<{ bits: Uint32Array; nodes: number; ms: number; error: unknown }> {
  const mask = c.masked ? await maskBits(c.n) : null;
  const ctx = createContext(64 + 8 * Math.ceil(c.n / 64));
  const raw = () => ctx.newTensor(GGML_F32, [c.hd, c.heads, c.n, 1]);
  const [q, k, v] = [raw(), raw(), raw()];
  const tm = mask ? ctx.newTensor(GGML_F16, [c.n, c.n]) : null;
  const heads = (t: Tensor) => ctx.permute(t, 0, 2, 1, 3);
  const out = attention(ctx, heads(q), heads(k), heads(v), {
    scale: 1 / Math.sqrt(c.hd),
    mask: tm,
    flash: true,
    kvType: c.kvType,
    cpu: true,
    cpuFlash: c.cpuFlash ?? true,
    maxNodeWork: c.maxNodeWork,
  });
  const size = c.hd * c.heads * c.n;
  const inputs: [Tensor, Float32Array | Uint16Array][] = [
    [q, seeded(size, 1)],
    [k, seeded(size, 2)],
    [v, seeded(size, 3)],
  ];
  if (tm && mask) inputs.push([tm, mask]);
  for (const [t] of inputs) t.setInput();
  out.setOutput();
  const graph = ctx.buildGraph([out]);
  try {
    graph.allocate(cpu);
    for (const [t, d] of inputs) t.set(d);
    const t0 = performance.now();
    const error = await graph.compute(cpu, timeoutMs === undefined ? undefined : { timeoutMs }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const ms = performance.now() - t0;
    const got = out.get(new Float32Array(out.nbytes / 4));
    return { bits: new Uint32Array(got.buffer), nodes: graph.nodeCount, ms, error };
  } finally {
    graph.dispose();
    ctx.dispose();
  }
}

const sameBits = (a: Uint32Array, b: Uint32Array) => a.length === b.length && a.every((x, i) => x === b[i]);

describe('queryBlocks', () => {
  it('one block when the work fits; else blocks of whole multiples of 64 queries, at least 1024, a short tail joined to the block before', () => {
    expect(queryBlocks(3000, 1000, 3_000_000)).toEqual([[0, 3000]]);
    expect(queryBlocks(2000, 1e9, 1)).toEqual([[0, 2000]]); // too few queries to split
    expect(queryBlocks(5000, 1000, 1_024_000)).toEqual([
      [0, 1024],
      [1024, 1024],
      [2048, 1024],
      [3072, 1928],
    ]);
    expect(queryBlocks(5000, 1000, 2_500_000)).toEqual([
      [0, 2496],
      [2496, 2504],
    ]);
    // the fuzzer's hfvit of 65 541 tokens (width 16, 2 heads): seventeen nodes instead of one
    const big = queryBlocks(65_541, 65_541 * 32 * 2, ATTENTION_NODE_WORK);
    expect(big.reduce((a, b) => a + b[1], 0)).toBe(65_541);
    expect(big.length).toBe(17);
    for (const [, n] of big.slice(0, -1)) expect(n * 65_541 * 64).toBeLessThanOrEqual(ATTENTION_NODE_WORK);
  });
});

describe('flash attention in blocks of queries on the CPU', () => {
  const base = { hd: 32, n: 2200, heads: 2 };
  const perQuery = base.n * 2 * base.hd * base.heads;
  const paths = [
    ['the CPU kernel, F32 K/V', GGML_F32, '1'],
    ['the CPU kernel, F16 K/V', GGML_F16, '1'],
    ["ggml's kernel (JEPA_FLASH_CPU=0), F32 K/V", GGML_F32, '0'],
    ["ggml's kernel (JEPA_FLASH_CPU=0), F16 K/V", GGML_F16, '0'],
  ] as const;
  for (const [name, kvType, flashCpu] of paths) {
    for (const masked of [false, true]) {
      it(`${name}${masked ? ', block-causal mask' : ''}: two blocks (1024 and 1176 queries) give the bits of one node`, async () => {
        if (flashCpu === '1') expect(buildInfo().flashAttnCpu).not.toBeNull();
        const cpuFlash = flashCpu === '1';
        const whole = await run({ ...base, kvType, masked, cpuFlash, maxNodeWork: Number.POSITIVE_INFINITY });
        const split = await run({ ...base, kvType, masked, cpuFlash, maxNodeWork: perQuery * 1024 });
        expect(split.nodes).toBeGreaterThan(whole.nodes); // two attention nodes and a concat
        expect(sameBits(split.bits, whole.bits)).toBe(true);
        // negative control: the comparison sees a change (the mask's)
        const other = await run({ ...base, kvType, masked: !masked, cpuFlash, maxNodeWork: perQuery * 1024 });
        expect(sameBits(other.bits, whole.bits)).toBe(false);
      });
    }
  }

  it('a deadline stops a split attention part way; one big node runs to its end past it', async () => {
    const c = { hd: 32, n: 8192, heads: 2, kvType: GGML_F32, masked: false };
    // the deadline is an eighth of this CPU's time for the whole attention, so the bound holds on any CPU
    const free = await run({ ...c, maxNodeWork: Number.POSITIVE_INFINITY });
    const deadline = Math.max(1, Math.floor(free.ms / 8));
    const whole = await run({ ...c, maxNodeWork: Number.POSITIVE_INFINITY }, deadline);
    // the single node is not interrupted: the graph finishes (nothing is left to abort after it)
    expect(whole.error).toBeUndefined();
    expect(whole.ms).toBeGreaterThan(deadline);
    const split = await run({ ...c, maxNodeWork: c.n * 2 * c.hd * c.heads * 1024 }, deadline);
    expect(split.error).toBeInstanceOf(NativeError);
    const err = split.error as NativeError & { nodesDone: number; nodeCount: number };
    expect(err.code).toBe('DEADLINE');
    expect(err.nodesDone).toBeLessThan(err.nodeCount);
    // stopped within a few blocks of the deadline: far sooner than the whole attention
    expect(split.ms).toBeLessThan(whole.ms / 2);
  }, 60_000);
});
