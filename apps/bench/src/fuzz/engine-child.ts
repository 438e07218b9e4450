// The engine fuzzer's child: takes model paths over IPC, one at a time, and runs each through the
// engine as a user would: Model.load, then on a small input made by the file's own recipe (a 13x11
// RGB image, or a clip of the file's frame count) encode, both pools, the head's classify, the masked
// predictor's predict and the hierarchy output, whatever the file declares. It answers with the
// outcome; a crash, a hang or memory past the budget is the parent's to see.
import { isUserFacing } from '@jepa/errors';
import { Model, predictorTokens, type EncoderInput } from '@jepa/graph';
import { preprocessClip, preprocessImage, recipeFromPreKeys, type RgbImage } from '@jepa/preprocess';

export interface ChildRequest {
  path: string;
  /** The compute deadline of every context (the engine's own bound on a graph too big to finish). */
  computeMs: number;
  /** Harness self-tests only: misbehave this way instead of running the file. */
  selfTest?: 'abort' | 'hang' | 'memory' | 'nan' | 'foreign-error';
}

export type ChildOutcome =
  | { status: 'refused'; stage: string; code: string; kind: string; message: string }
  | { status: 'ran'; ops: string[] }
  | { status: 'finding'; kind: 'nan' | 'error'; stage: string; detail: string };

function rgb(width: number, height: number, seed: number): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 73 + seed * 151 + ((i * i) >> 3)) & 255;
  return { width, height, data };
}

const nonFinite = (a: ArrayLike<number>): number => {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i]!)) return i;
  return -1;
};

class NaNFinding extends Error {}

function finite(what: string, a: ArrayLike<number>): void {
  const at = nonFinite(a);
  if (at >= 0) throw new NaNFinding(`${what}: value ${at} of ${a.length} is ${a[at]}`);
}

async function selfTest(kind: NonNullable<ChildRequest['selfTest']>): Promise<ChildOutcome> {
  if (kind === 'abort') process.abort();
  if (kind === 'hang') for (;;);
  if (kind === 'memory') {
    const held: Buffer[] = [];
    for (;;) {
      held.push(Buffer.alloc(64 << 20, 1));
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  if (kind === 'nan') finite('self-test tokens', [0, Number.NaN]);
  throw new TypeError('self-test: a foreign error');
}

export async function runFile(req: ChildRequest): Promise<ChildOutcome> {
  let stage = 'load';
  let model: Model | undefined;
  const ops: string[] = [];
  try {
    if (req.selfTest) return await selfTest(req.selfTest);
    model = await Model.load(req.path, { threads: 1 });
    const spec = model.spec;
    stage = 'recipe';
    const recipe = recipeFromPreKeys(spec.pre);
    const video = spec.enc.nFrames > 1 || spec.enc.tubeletSize > 1;
    const tensor = video
      ? preprocessClip(
          Array.from({ length: spec.enc.nFrames }, (_, t) => rgb(13, 11, t)),
          recipe,
        )
      : preprocessImage(rgb(13, 11, 0), recipe);
    const input: EncoderInput = { data: tensor.data, shape: [1, ...tensor.shape] };
    stage = 'encode';
    const timeoutMs = req.computeMs;
    const ctx = model.createContext({ timeoutMs });
    const out = await ctx.encode(input);
    finite('tokens', out.tokens);
    ops.push('encode');
    stage = 'pool';
    finite('mean pool', out.pool('mean'));
    if (out.nCls > 0) finite('cls pool', out.pool('cls'));
    ops.push('pool');
    if (spec.head) {
      stage = 'classify';
      const [c] = await model.createHeadContext({ timeoutMs }).classify(out);
      finite('logits', c!.logits);
      ops.push('classify');
    }
    if (spec.pred?.kind === 'masked') {
      stage = 'predict';
      const { tokens, dim } = predictorTokens(out);
      const n = tokens.length / dim;
      const ids = Array.from({ length: n }, (_, i) => i);
      const half = Math.max(1, n >> 1);
      const p = await model.createPredictorContext({ timeoutMs }).predict({
        tokens,
        dim,
        contextIds: ids.slice(0, half),
        targetIds: n > half ? ids.slice(half) : [0],
        returnContext: spec.pred.projContext,
      });
      finite('predictions', p.targets);
      ops.push('predict');
    }
    if (spec.enc.hierLayers) {
      stage = 'hierarchy';
      const h = await model.createContext({ output: 'hierarchy', timeoutMs }).encode(input);
      finite('hierarchy tokens', h.tokens);
      ops.push('hierarchy');
    }
    return { status: 'ran', ops };
  } catch (err) {
    if (err instanceof NaNFinding) return { status: 'finding', kind: 'nan', stage, detail: err.message };
    if (isUserFacing(err)) return { status: 'refused', stage, code: err.code, kind: err.kind, message: err.message };
    const detail = err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err);
    return { status: 'finding', kind: 'error', stage, detail };
  } finally {
    await model?.dispose();
  }
}

if (process.send) {
  process.on('message', (req: ChildRequest) => {
    void runFile(req).then((outcome) => process.send!(outcome));
  });
  process.send({ status: 'ready' });
}
