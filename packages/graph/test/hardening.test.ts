// Model.load refuses weights holding NaN / Inf (f32, f16, bf16 values; q8_0 block scales) by tensor
// name unless allowNonFinite; an encode past its timeoutMs stops with GraphError TIMEOUT and leaves
// the context as good as new.
import { openSync, closeSync, writeSync } from 'node:fs';
import { GgmlType, forgeModel, loadModelSpec, type ForgeKnobs } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { GraphError, Model, predictorTokens, type EncoderInput } from '../src/index.js';

function image(batch: number, size: number, seed = 1): EncoderInput {
  const shape = [batch, 3, size, size];
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = Math.sin(i * 0.37 + seed) * 1.5;
  return { data, shape };
}

const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Overwrites bytes of a forged file at byte `at` of tensor `name`'s data. */
function poke(path: string, name: string, at: number, bytes: Uint8Array): void {
  const info = loadModelSpec(path).tensors.get(name);
  if (!info) throw new Error(`no tensor ${name}`);
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, info.offset + at);
  } finally {
    closeSync(fd);
  }
}

const u32 = (v: number) => new Uint8Array(Uint32Array.of(v).buffer);
const u16 = (v: number) => new Uint8Array(Uint16Array.of(v).buffer);

const QKV = 'enc.blk.1.attn.qkv.weight';
const FC1 = 'enc.blk.0.ffn.fc1.weight';

async function loadError(path: string): Promise<unknown> {
  return Model.load(path, { threads: 2 }).then(
    (m) => {
      m.dispose();
      return null;
    },
    (e: unknown) => e,
  );
}

describe('non-finite weights', () => {
  const cases: { what: string; knobs: ForgeKnobs; plant: (path: string) => void; message: RegExp }[] = [
    {
      what: 'f32 NaN',
      knobs: {},
      plant: (p) => poke(p, QKV, 1234 * 4, u32(0x7fc00000)),
      message:
        /^enc\.blk\.1\.attn\.qkv\.weight holds NaN \(first at element 1234\); the file is damaged or was saved from a diverged run; --allow-nonfinite loads it anyway$/,
    },
    {
      what: 'f16 Inf',
      knobs: { matmulType: GgmlType.F16 },
      plant: (p) => poke(p, FC1, 7 * 2, u16(0x7c00)),
      message: /^enc\.blk\.0\.ffn\.fc1\.weight holds Inf \(first at element 7\);/,
    },
    {
      what: 'bf16 NaN',
      knobs: { matmulType: GgmlType.BF16 },
      plant: (p) => poke(p, QKV, 40 * 2, u16(0xffc1)),
      message: /^enc\.blk\.1\.attn\.qkv\.weight holds NaN \(first at element 40\);/,
    },
    {
      what: 'q8_0 NaN scale',
      knobs: { matmulType: GgmlType.Q8_0, tensorType: { 'enc.patch_embed.weight': GgmlType.F16 } }, // 48-wide rows: not whole q8_0 blocks
      plant: (p) => poke(p, QKV, 3 * 34, u16(0x7e00)),
      message: /^enc\.blk\.1\.attn\.qkv\.weight holds NaN \(first at element 96, the scale of its q8_0 block\);/,
    },
  ];

  for (const c of cases) {
    it(`${c.what}: refused by name; allowNonFinite loads it; the unplanted file loads`, async () => {
      const clean = forgeModel('hfvit', c.knobs);
      const control = await Model.load(clean.path, { threads: 2 });
      const ok = await control.createContext().encode(image(1, 8));
      expect(ok.tokens.every(Number.isFinite)).toBe(true);
      control.dispose();

      c.plant(clean.path);
      const err = await loadError(clean.path);
      expect(err).toBeInstanceOf(GraphError);
      expect(err).toMatchObject({ code: 'NON_FINITE' });
      expect((err as Error).message).toMatch(c.message);
      expect((err as Error).message).not.toMatch(/\n/);

      const allowed = await Model.load(clean.path, { threads: 2, allowNonFinite: true });
      const out = await allowed.createContext().encode(image(1, 8));
      // what the check is for: float weights give NaN embeddings; a q8_0 model gives finite garbage,
      // since quantizing the activations to q8_0 for the next matmul turns their NaNs into integers
      if (c.knobs.matmulType === GgmlType.Q8_0) expect(bits(out.tokens).equals(bits(ok.tokens))).toBe(false);
      else expect(out.tokens.some((v) => !Number.isFinite(v))).toBe(true);
      allowed.dispose();
    });
  }

  it('names the first bad tensor in file order and counts the others', async () => {
    const forged = forgeModel('ijepa');
    poke(forged.path, FC1, 0, u32(0xff800000)); // -Inf
    poke(forged.path, QKV, 8, u32(0x7fc00000));
    poke(forged.path, 'enc.norm.weight', 4, u32(0x7fc00000));
    const err = await loadError(forged.path);
    const order = [FC1, QKV, 'enc.norm.weight'].sort(
      (a, b) => loadModelSpec(forged.path).tensors.get(a)!.offset - loadModelSpec(forged.path).tensors.get(b)!.offset,
    );
    expect((err as Error).message).toMatch(new RegExp(`^${order[0]!.replace(/\./g, '\\.')} holds .*, as do 2 more tensors; `));
  });
});

describe('compute deadline', () => {
  it('a 0 ms deadline aborts the encode; the same context then matches a fresh one bit for bit', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const ctx = model.createContext();
    const input = image(2, 16, 3);
    const err = await ctx.encode(input, { timeoutMs: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphError);
    expect(err).toMatchObject({ code: 'TIMEOUT' });
    expect((err as Error).message).toMatch(
      /^the encoder ran past the 0 ms deadline \(timeoutMs, --timeout\) after node 0 of \d+; nothing was returned$/,
    );
    const after = await ctx.encode(input);
    const fresh = model.createContext();
    expect(bits(after.tokens).equals(bits((await fresh.encode(input)).tokens))).toBe(true);
    ctx.dispose();
    fresh.dispose();
    model.dispose();
  });

  it("the context's timeoutMs applies to every call; a call's own replaces it; several graphs count together", async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const strict = model.createContext({ timeoutMs: 0, maxBatch: 1 });
    const input = image(3, 8, 5);
    await expect(strict.encode(input)).rejects.toMatchObject({ code: 'TIMEOUT' });
    const err = (await strict.encode(input).catch((e: unknown) => e)) as Error;
    const total = Number(/of (\d+);/.exec(err.message)![1]);
    const perGraph = model.createContext({ maxBatch: 1 });
    await perGraph.prepare(input.shape);
    const out = await strict.encode(input, { timeoutMs: 60_000 });
    expect(bits(out.tokens).equals(bits((await perGraph.encode(input)).tokens))).toBe(true);
    // three one-item graphs: the node count is theirs together
    expect(total % 3).toBe(0);
    await expect(strict.profile(input)).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(model.createContext().encode(input, { timeoutMs: -1 })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    model.dispose();
  });

  it('the classifier head and the masked predictor take a timeoutMs too', async () => {
    const model = await Model.load(forgeModel('vjepa2').path, { threads: 2 });
    const clip = { data: Float32Array.from({ length: 3 * 4 * 8 * 8 }, (_, i) => Math.sin(i * 0.3)), shape: [1, 3, 4, 8, 8] };
    const tokens = await model.createContext().encode(clip);
    await expect(model.createHeadContext({ timeoutMs: 0 }).logits(tokens)).rejects.toThrow(
      /^the classifier head ran past the 0 ms deadline \(timeoutMs, --timeout\) after node 0 of \d+; nothing was returned$/,
    );
    const head = model.createHeadContext({ timeoutMs: 60_000 });
    expect(bits((await head.logits(tokens))[0]!).equals(bits((await model.createHeadContext().logits(tokens))[0]!))).toBe(true);
    const input = { ...predictorTokens(tokens), contextIds: [0, 1, 2], targetIds: [3, 4] };
    await expect(model.createPredictorContext({ timeoutMs: 0 }).predict(input)).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringMatching(/^the predictor ran past/),
    });
    const predicted = await model.createPredictorContext({ timeoutMs: 60_000 }).predict(input);
    expect(bits(predicted.targets).equals(bits((await model.createPredictorContext().predict(input)).targets))).toBe(true);
    model.dispose();
  });

  it('a deadline passing mid-graph stops between nodes and leaves the context usable', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const ctx = model.createContext();
    const input = image(1, 192, 7); // 2306 tokens: tens of ms
    await ctx.prepare(input.shape);
    const whole = await ctx.encode(input);
    const err = (await ctx.encode(input, { timeoutMs: 1 }).catch((e: unknown) => e)) as Error;
    expect(err).toMatchObject({ code: 'TIMEOUT' });
    const [, done, total] = /after node (\d+) of (\d+);/.exec(err.message)!.map(Number);
    expect(done).toBeLessThan(total!);
    expect(bits((await ctx.encode(input)).tokens).equals(bits(whole.tokens))).toBe(true);
    model.dispose();
  });
});

describe('model disposal', () => {
  it('an encode in flight finishes with the same tokens; calls that have not started by model.dispose() are refused', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const ctx = model.createContext();
    const input = image(2, 16, 7);
    const before = await ctx.encode(input);
    const inFlight = ctx.encode(input);
    await new Promise((r) => setImmediate(r)); // its job has started: the graph is computing
    const queued = ctx.encode(input);
    model.dispose();
    expect(model.disposed).toBe(true);
    expect(bits((await inFlight).tokens).equals(bits(before.tokens))).toBe(true);
    await expect(queued).rejects.toMatchObject({ name: 'GraphError', code: 'DISPOSED' });
    await expect(ctx.encode(input)).rejects.toMatchObject({ code: 'DISPOSED', message: 'the model was disposed' });
    ctx.dispose();
  });
});
