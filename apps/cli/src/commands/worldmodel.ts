// `jepa worldmodel`: LeWM — images -> state embeddings -> action-conditioned rollout, or a CEM plan
// toward a goal image. A V-JEPA 2-AC model (jepa.pred.kind = ac) takes the path in worldmodel-ac.ts.
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { type WorldModel, WorldModelError, normalSampler, type ActionStats } from '@jepa/worldmodel';
import { openSession, type RuntimeFlags } from '../open-session.js';
import { addInputOptions, type InputFlags } from '../input-options.js';
import { addRuntimeOptions, positiveInt } from '../runtime-options.js';
import { aboutFile, checkInputFile, UserError } from '../user-error.js';
import { localModel } from '../hub-model.js';
import { checkNpyOutput } from '../output.js';
import { say } from '../display-text.js';
import { loadModelSpec } from '@jepa/gguf';
import { checkAgainstReference } from './rollout-ref-check.js';
import { AC_ONLY, addAcOptions, flagName, given, runAcWorldModel, type AcFlags } from './worldmodel-ac.js';

interface WorldModelFlags extends RuntimeFlags, InputFlags, AcFlags {
  model: string;
  image?: string[];
  actions?: string;
  actionsNpy?: string;
  randomActions?: number;
  horizon: number;
  plan?: boolean;
  goal?: string;
  samples: number;
  iterations: number;
  topk: number;
  seed: number;
  actionMean?: string;
  actionStd?: string;
  output?: string;
  refCheck?: string;
}

const integer = (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n)) throw new InvalidArgumentError('expected an integer');
  return n;
};

const numbers = (text: string, what: string) =>
  text.split(',').map((s) => {
    const v = Number(s.trim());
    if (s.trim() === '' || !Number.isFinite(v)) throw new UserError(`${what}: '${s}' is not a number`);
    return v;
  });

/** Candidate action sequences [K, T, A] from the flags, in the model's action space. */
function actionSequences(wm: WorldModel, flags: WorldModelFlags): { data: Float32Array; candidates: number; steps: number } {
  const A = wm.actionDim;
  const given = [flags.actions, flags.actionsNpy, flags.randomActions].filter((x) => x !== undefined).length;
  if (given !== 1) throw new UserError('give exactly one of --actions, --actions-npy or --random-actions');
  const stats = flags.actionMean !== undefined;
  if (flags.randomActions !== undefined) {
    const normal = normalSampler(flags.seed);
    const data = Float32Array.from({ length: flags.randomActions * flags.horizon * A }, normal);
    return { data, candidates: flags.randomActions, steps: flags.horizon };
  }
  let raw: Float32Array;
  let candidates = 1;
  if (flags.actions !== undefined) {
    const rows = flags.actions
      .split(';')
      .map((r) => r.trim())
      .filter(Boolean)
      .map((r) => numbers(r, '--actions'));
    if (rows.some((r) => r.length !== A)) throw new UserError(`--actions: every step needs ${A} values (the model's action width)`);
    raw = Float32Array.from(rows.flat());
  } else {
    const npy = readNpy(flags.actionsNpy!);
    const s = npy.shape;
    if (npy.dtype !== 'float32' || !((s.length === 2 || s.length === 3) && s[s.length - 1] === A))
      throw new UserError(`--actions-npy ${flags.actionsNpy}: expected float32 [T, ${A}] or [K, T, ${A}], got ${npy.dtype} [${s.join(', ')}]`);
    raw = npy.data as Float32Array;
    if (s.length === 3) candidates = s[0]!;
  }
  const data = stats ? wm.normalizeActions(raw) : raw;
  return { data, candidates, steps: raw.length / (candidates * A) };
}

function actionStats(flags: WorldModelFlags): ActionStats | undefined {
  if ((flags.actionMean === undefined) !== (flags.actionStd === undefined)) throw new UserError('give --action-mean and --action-std together');
  if (flags.actionMean === undefined) return undefined;
  return { mean: numbers(flags.actionMean, '--action-mean'), std: numbers(flags.actionStd!, '--action-std') };
}

export function worldmodelCommand(program: Command): void {
  const cmd = program
    .command('worldmodel')
    .description(
      'LeWorldModel: encode frames, roll actions forward, or plan toward a goal image (CEM); V-JEPA 2-AC: the predictor once, or a CEM plan',
    )
    .requiredOption('-m, --model <gguf>', 'a LeWM or V-JEPA 2-AC model')
    .option('--image <files...>', 'the history frames, oldest first (the last is the current state); 2-AC --plan: the current frame')
    .option('--actions <rows>', "one candidate's actions, steps separated by ';', values by ','")
    .option('--actions-npy <file>', 'actions as float32 [T, A] or [K, T, A] (2-AC: [K, T, 7])')
    .option('--random-actions <k>', 'K random (standard normal, model space) candidates of --horizon steps', positiveInt)
    .option('--horizon <n>', 'steps per candidate (--random-actions, --plan)', positiveInt, 5)
    .option('--plan', 'plan with CEM toward --goal instead of rolling given actions')
    .option('--goal <image>', 'the goal frame (the cost is the squared distance to its embedding)')
    .option('--samples <n>', 'CEM samples (2-AC default 400)', positiveInt, 300)
    .option('--iterations <n>', 'CEM iterations', positiveInt, 30)
    .option('--topk <n>', 'CEM elite size (2-AC default 10)', positiveInt, 30)
    .option('--seed <n>', 'seed of the CEM and --random-actions noise', integer, 0)
    .option('--action-mean <values>', 'dataset action means (raw actions are z-scored with them; plans are returned raw)')
    .option('--action-std <values>', 'dataset action standard deviations')
    .option(
      '-o, --output <file.npy>',
      'write the rollout [K, T+1, D] or the plan [horizon, A] (2-AC: the predictor output [K, T·H·W, D] or the plan [rollout, 7])',
    )
    .option(
      '--ref-check <file.npy>',
      "judge the rollout [K, T+1, D] (2-AC: the predictor output [K, T·H·W, D]) against a stored reference (the parity judge's bars; exit 3 when it fails)",
    );
  addAcOptions(cmd);
  addRuntimeOptions(cmd);
  addInputOptions(cmd);
  cmd.action(async (flags: WorldModelFlags) => {
    if (flags.plan && !flags.goal) throw new UserError('--plan needs --goal');
    flags.model = await localModel(flags.model);
    checkNpyOutput(flags.output, '-o');
    const spec = aboutFile(`-m ${flags.model}`, flags.model, () => loadModelSpec(flags.model));
    if (flags.refCheck !== undefined) {
      if (flags.plan) throw new UserError(`--ref-check judges a ${spec.pred?.kind === 'ac' ? 'predictor output' : 'rollout'}; --plan makes a plan`);
      checkInputFile(flags.refCheck, '--ref-check');
    }
    if (spec.pred?.kind === 'ac') return runAcWorldModel(cmd, spec, flags);
    for (const name of AC_ONLY)
      if (given(cmd, name)) throw new UserError(`${flagName(cmd, name)} is for V-JEPA 2-AC models; ${flags.model} is not one`);
    if (flags.image === undefined) throw new UserError("required option '--image <files...>' not specified");
    for (const f of flags.image) checkInputFile(f, '--image');
    if (flags.goal !== undefined) checkInputFile(flags.goal, '--goal');
    if (flags.actionsNpy !== undefined) checkInputFile(flags.actionsNpy, '--actions-npy');
    if (spec.pred?.kind !== 'action') throw new UserError(`-m ${flags.model}: ${spec.name} has no action-conditioned (LeWM) predictor`);
    const stats = actionStats(flags);
    const session = await openSession(flags.model, flags, {
      world: {
        ...(flags.threads ? { threads: flags.threads } : {}),
        ...(flags.flash === false ? { noFlash: true } : {}),
        ...(stats ? { actionStats: stats } : {}),
      },
    });
    try {
      const wm = session.world();
      const input = session.input;
      const frames = flags.image.slice(-wm.history);
      if (frames.length < flags.image.length) say(`only the last ${wm.history} frames are history; ${flags.image.length - frames.length} dropped`);
      const pixels = await Promise.all(frames.map((f) => input.image(f)));
      const shape = pixels[0]!.shape;
      const batch = new Float32Array(pixels.length * pixels[0]!.data.length);
      for (const [i, p] of pixels.entries()) batch.set(p.data, i * p.data.length);
      const initial = await wm.encode({ data: batch, shape: [pixels.length, ...shape] });
      const goal = flags.goal ? await wm.encode({ data: (await input.image(flags.goal)).data, shape: [1, ...shape] }) : null;
      const H = frames.length;
      if (flags.plan) {
        const t0 = performance.now();
        const plan = await wm.plan({
          initial,
          goal: goal!,
          horizon: Math.max(flags.horizon, H),
          samples: flags.samples,
          iterations: flags.iterations,
          topk: flags.topk,
          seed: flags.seed,
        });
        const actions = plan.rawActions ?? plan.actions;
        const A = wm.actionDim;
        say(
          `CEM ${flags.samples} x ${flags.iterations}: best cost ${plan.bestCosts[0]!.toFixed(4)} -> ${plan.bestCosts.at(-1)!.toFixed(4)} in ${((performance.now() - t0) / 1000).toFixed(2)} s${plan.rawActions ? '' : ' (model action space: no --action-mean/--action-std)'}`,
        );
        for (let t = 0; t < actions.length / A; t++)
          process.stdout.write(`${Array.from(actions.subarray(t * A, (t + 1) * A), (v) => v.toFixed(5)).join(',')}\n`);
        if (flags.output) writeFileSync(flags.output, encodeNpy(actions, [actions.length / A, A]));
        return;
      }
      const seqs = actionSequences(wm, flags);
      const rolled = await wm.rollout({ data: initial, candidates: 1, steps: H }, seqs);
      const steps = seqs.steps + 1;
      say(`rolled ${seqs.candidates} candidate(s) over ${seqs.steps} actions from ${H} frame(s)`);
      if (goal) {
        const costs = wm.cost({ data: rolled, candidates: seqs.candidates, steps }, goal);
        for (const [k, c] of costs.entries()) process.stdout.write(`candidate ${k}: cost ${c.toFixed(6)}\n`);
      }
      if (flags.output) {
        writeFileSync(flags.output, encodeNpy(rolled, [seqs.candidates, steps, wm.embedDim]));
        say(`rollout [${seqs.candidates}, ${steps}, ${wm.embedDim}] -> ${flags.output}`);
      } else if (!goal) {
        const D = wm.embedDim;
        for (let k = 0; k < seqs.candidates; k++) {
          const last = rolled.subarray((k * steps + steps - 1) * D, (k * steps + steps) * D);
          process.stdout.write(`${JSON.stringify({ candidate: k, final: Array.from(last) })}\n`);
        }
      }
      if (flags.refCheck !== undefined)
        checkAgainstReference(wm.model, { what: 'rollout', modality: 'image' }, rolled, [seqs.candidates, steps, wm.embedDim], flags.refCheck);
    } catch (err) {
      throw err instanceof WorldModelError ? new UserError(err.message) : err;
    } finally {
      await session.dispose();
    }
  });
}
