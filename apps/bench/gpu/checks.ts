// The GPU checks, free of any test framework: the GPU machine runs them from a bundle with plain Node
// (device-main.ts), and apps/bench/test/gpu.test.ts runs them under vitest wherever a GPU is. Each
// check throws with its verdict when it fails and returns its verdict's summary when it passes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertCheckpoint } from '@jepa/convert';
import { compareTokens, cosine, EncodeOutput, judge, Model, policyRow, type FamilyClass, type Verdict } from '@jepa/graph';
import { createContext, openBackend, resolveDevice } from '@jepa/native';
import { readNpy } from '@jepa/preprocess';
import { quantizeFile } from '@jepa/quantize';
import { FIXTURE_TABLE, npy, REFERENCE_HEADS as HEADS, type ReferenceFixture } from '@jepa/testing';
import { WorldModel } from '@jepa/worldmodel';

export interface GpuCheck {
  name: string;
  run(device: string): Promise<string>;
}

export interface CheckResult {
  name: string;
  pass: boolean;
  summary: string;
  ms: number;
}

export const CHECK_DTYPES = ['f32', 'f16', 'q8_0'] as const;
type CheckDtype = (typeof CHECK_DTYPES)[number];

/** The model at `path` on `device`, disposed once `fn` settles. */
async function withModel<T>(path: string, device: string, fn: (model: Model) => Promise<T>): Promise<T> {
  const model = await Model.load(path, { device });
  try {
    return await fn(model);
  } finally {
    model.dispose();
  }
}

/** The parity policy's rows for where the check runs: a GPU's, or the CPU's when it stands in (the dry run). */
const backendOf = (device: string) => (resolveDevice(device) === 'CPU' ? 'cpu' : 'gpu');

function passOrThrow(v: Verdict): string {
  if (v.failures.length > 0) throw new Error(v.summary);
  return v.summary;
}

/** The fixture converted (f32, f16) or quantized from its f32 file (q8_0), once per folder and dtype. */
async function fixtureFile(f: ReferenceFixture, dtype: CheckDtype, tmp: string): Promise<string> {
  const f32 = join(tmp, `${f.folder}-f32.gguf`);
  await convertCheckpoint(f.src, f32, { ...f.options, dtype: 'f32' });
  if (dtype === 'f32') return f32;
  const path = join(tmp, `${f.folder}-${dtype}.gguf`);
  if (dtype === 'f16') await convertCheckpoint(f.src, path, { ...f.options, dtype: 'f16' });
  else await quantizeFile(f32, path, 'q8_0');
  return path;
}

const tierOf = (dtype: CheckDtype) => (dtype === 'q8_0' ? 'q8' : dtype);

function fixtureCheck(f: ReferenceFixture, dtype: CheckDtype, tmp: string): GpuCheck {
  return {
    name: `${f.folder} ${dtype} meets the tier of its device`,
    async run(device) {
      const c = f.cases[0]!;
      const out = await withModel(await fixtureFile(f, dtype, tmp), device, (model) => model.createContext().encode(npy(f.folder, c.input)));
      return passOrThrow(
        judge(
          policyRow(backendOf(device), f.familyClass, tierOf(dtype)),
          compareTokens(out.tokens, npy(f.folder, c.lastHiddenState).data, out.dim),
          cosine(out.pool(f.pool), npy(f.folder, c.pooled).data),
        ),
      );
    },
  };
}

/** The fixture check must be able to fail: the same output against its golden with the tokens rotated by one. */
function negativeControl(f: ReferenceFixture, tmp: string): GpuCheck {
  return {
    name: `negative control: ${f.folder} f32 against its golden rotated by one token fails the tier`,
    async run(device) {
      const c = f.cases[0]!;
      const out = await withModel(await fixtureFile(f, 'f32', tmp), device, (model) => model.createContext().encode(npy(f.folder, c.input)));
      const golden = npy(f.folder, c.lastHiddenState).data;
      const rotated = new Float32Array(golden.length);
      rotated.set(golden.subarray(out.dim));
      rotated.set(golden.subarray(0, out.dim), golden.length - out.dim);
      const v = judge(policyRow(backendOf(device), f.familyClass, 'f32'), compareTokens(out.tokens, rotated, out.dim));
      if (v.failures.length === 0) throw new Error(`the rotated golden passed: ${v.summary}`);
      return v.summary;
    },
  };
}

/** Three items: the fixture's input and two others of its shape, deterministic. */
function threeItems(x: { data: Float32Array; shape: number[] }): { data: Float32Array; shape: number[] } {
  const n = x.data.length;
  const data = new Float32Array(3 * n);
  data.set(x.data, 0);
  for (let i = 0; i < n; i++) {
    data[n + i] = x.data[n - 1 - i]!;
    data[2 * n + i] = 0.5 * x.data[i]! + 0.25 * Math.sin(i);
  }
  return { data, shape: [3, ...x.shape.slice(1)] };
}

function batchingCheck(f: ReferenceFixture, tmp: string): GpuCheck {
  return {
    name: `${f.folder}: a batch of 3 equals the items one by one within the f32 tier of its device`,
    run: async (device) =>
      withModel(await fixtureFile(f, 'f32', tmp), device, async (model) => {
        const ctx = model.createContext({ maxBatch: 3 });
        const x = threeItems(npy(f.folder, f.cases[0]!.input));
        const batched = await ctx.encode(x);
        const itemSize = x.data.length / 3;
        const summaries: string[] = [];
        for (let i = 0; i < 3; i++) {
          const one = await ctx.encode({ data: x.data.subarray(i * itemSize, (i + 1) * itemSize), shape: [1, ...x.shape.slice(1)] });
          summaries.push(
            `item ${i}: ${passOrThrow(judge(policyRow(backendOf(device), f.familyClass, 'f32'), compareTokens(batched.item(i), one.tokens, one.dim)))}`,
          );
        }
        return summaries.join('; ');
      }),
  };
}

function lifecycleCheck(f: ReferenceFixture, tmp: string): GpuCheck {
  return {
    name: `${f.folder}: disposing the model with an encode in flight lets it finish; later calls are refused`,
    async run(device) {
      const model = await Model.load(await fixtureFile(f, 'f32', tmp), { device });
      const ctx = model.createContext();
      const input = npy(f.folder, f.cases[0]!.input);
      const reference = await ctx.encode(input);
      const pending = ctx.encode(input);
      await new Promise((r) => setImmediate(r)); // its job has started: the graph is computing
      model.dispose();
      const out = await pending;
      const m = compareTokens(out.tokens, reference.tokens, reference.dim);
      if (m.minCos < 1) throw new Error(`the in-flight encode finished with other tokens (worst cosine ${m.minCos})`);
      const after = await ctx.encode(input).then(
        () => 'resolved',
        (err: { code?: string }) => err.code ?? String(err),
      );
      if (after !== 'DISPOSED') throw new Error(`an encode after dispose gave '${after}', not DISPOSED`);
      ctx.dispose();
      return `in flight: finished, worst token cosine ${m.minCos} against before; after: DISPOSED`;
    },
  };
}

function headCheck(dir: string): GpuCheck {
  return {
    name: `attentive head ${dir} on the device meets the f32 tier, top-k exact`,
    run: (device) =>
      withModel(join(HEADS, dir, 'model.gguf'), device, async (model) => {
        const manifest = JSON.parse(readFileSync(join(HEADS, dir, 'manifest.json'), 'utf8')) as { top: number[] };
        const tokens = readNpy(readFileSync(join(HEADS, dir, 'tokens.npy'))).data as Float32Array;
        const expected = readNpy(readFileSync(join(HEADS, dir, 'logits.npy'))).data as Float32Array;
        const D = model.spec.enc.embedDim;
        const [result] = await model.createHeadContext().classify(new EncodeOutput(tokens, 1, tokens.length / D, D, 0, 0), expected.length);
        const summary = passOrThrow(judge(policyRow(backendOf(device), 'image', 'f32'), compareTokens(result!.logits, expected, expected.length)));
        const top = result!.top.map((c) => c.index);
        if (top.join() !== manifest.top.join()) throw new Error(`top-k ${top.join()} != ${manifest.top.join()}`);
        return summary;
      }),
  };
}

function predictorCheck(dir: string): GpuCheck {
  return {
    name: `masked predictor ${dir} on the device meets the f32 tier`,
    run: (device) =>
      withModel(join(HEADS, dir, 'model.gguf'), device, async (model) => {
        const p = model.spec.pred;
        if (p?.kind !== 'masked') throw new Error(`${dir} has no masked predictor`);
        const tokens = readNpy(readFileSync(join(HEADS, dir, 'tokens.npy'))).data as Float32Array;
        const all = Array.from({ length: tokens.length / p.embedInDim }, (_, i) => i);
        const out = await model
          .createPredictorContext()
          .predict({ tokens, dim: p.embedInDim, contextIds: all, targetIds: all, modality: 'video', returnContext: p.projContext });
        const expected = readNpy(readFileSync(join(HEADS, dir, 'targets_full.npy'))).data as Float32Array;
        return passOrThrow(judge(policyRow(backendOf(device), 'image', 'f32'), compareTokens(out.targets, expected, out.outDim)));
      }),
  };
}

const lewmCheck: GpuCheck = {
  name: 'LeWM predictor (3 candidates x 3 steps) on the device meets the f32 tier',
  async run(device) {
    const dir = join(HEADS, 'lewm');
    const read = (name: string) => readNpy(readFileSync(join(dir, `${name}.npy`)));
    const wm = await WorldModel.load(join(dir, 'model.gguf'), { device });
    try {
      const embs = read('predict_embs');
      const [K, T] = embs.shape as [number, number];
      const out = await wm.predict(
        { data: embs.data as Float32Array, candidates: K, steps: T },
        { data: read('predict_actions').data as Float32Array, candidates: K, steps: T },
      );
      return passOrThrow(
        judge(policyRow(backendOf(device), 'image', 'f32'), compareTokens(out, read('predict_out').data as Float32Array, wm.embedDim)),
      );
    } finally {
      wm.dispose();
    }
  },
};

const refusalCheck: GpuCheck = {
  name: 'graph validation names a node the device cannot run',
  async run(device) {
    const backend = openBackend({ device, threads: 1 });
    const ctx = createContext(8);
    // an i32 x i32 product: no backend multiplies integers
    const out = ctx.mulMat(ctx.newTensor(26, [16, 4]), ctx.newTensor(26, [16, 3]));
    out.name = 'int_scores';
    const graph = ctx.buildGraph([out]);
    try {
      graph.validate(backend);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      if (e.code === 'UNSUPPORTED_OP' && /'int_scores' MUL_MAT/.test(e.message ?? '')) return e.message!;
      throw new Error(`refused, but not by name: ${e.code} ${e.message}`);
    } finally {
      graph.dispose();
      ctx.dispose();
      backend.dispose();
    }
    throw new Error('an i32 x i32 MUL_MAT passed validation');
  },
};

const firstOfClass = (c: FamilyClass) => FIXTURE_TABLE.find((f) => f.familyClass === c)!;

/** Every check, converting into `tmp`. */
export function gpuChecks(tmp: string): GpuCheck[] {
  return [
    ...FIXTURE_TABLE.flatMap((f) => CHECK_DTYPES.map((d) => fixtureCheck(f, d, tmp))),
    batchingCheck(firstOfClass('image'), tmp),
    batchingCheck(firstOfClass('video'), tmp),
    lifecycleCheck(firstOfClass('image'), tmp),
    headCheck('vjepa2_pooler'),
    headCheck('vjepa_probe'),
    predictorCheck('vjepa2_predictor'),
    lewmCheck,
    refusalCheck,
    negativeControl(firstOfClass('image'), tmp),
  ];
}

/** Runs every check, reporting each as it ends; a failing check does not stop the others. */
export async function runChecks(checks: GpuCheck[], device: string, onResult: (r: CheckResult) => void): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const c of checks) {
    const t0 = performance.now();
    let r: CheckResult;
    try {
      r = { name: c.name, pass: true, summary: await c.run(device), ms: 0 };
    } catch (err) {
      r = { name: c.name, pass: false, summary: err instanceof Error ? err.message : String(err), ms: 0 };
    }
    r.ms = performance.now() - t0;
    results.push(r);
    onResult(r);
  }
  return results;
}
