// `jepa worldmodel` on a V-JEPA 2-AC model (jepa.pred.kind = ac): the predictor once over given
// tokens, actions and poses (teacher-forced), or a CEM plan from the current frame and pose toward a
// goal frame, with the world-model wrapper's settings as defaults.
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import type { ModelSpec } from '@jepa/gguf';
import type { ItemTensor } from '@jepa/input';
import type { ModelSession } from '@jepa/session';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { AC_ACTION_DIM, WorldModelError, acCemSettings, type AcCemOptions, type AcCemSettings } from '@jepa/worldmodel';
import { openSession, type RuntimeFlags } from '../open-session.js';
import type { InputFlags } from '../input-options.js';
import { positiveInt } from '../runtime-options.js';
import { checkInputFile, UserError } from '../user-error.js';
import { printLines, say } from '../display-text.js';
import { checkAgainstReference } from './rollout-ref-check.js';

/** The flags the AC path reads: its own, and those it shares with LeWM. */
export interface AcFlags extends RuntimeFlags, InputFlags {
  model: string;
  image?: string[];
  goal?: string;
  plan?: boolean;
  actionsNpy?: string;
  samples: number;
  topk: number;
  seed: number;
  output?: string;
  refCheck?: string;
  tokensNpy?: string;
  statesNpy?: string;
  extrinsicsNpy?: string;
  state?: string;
  extrinsics?: string;
  rollout?: number;
  cemSteps?: number;
  momentumMean?: number;
  momentumStd?: number;
  momentumMeanGripper?: number;
  momentumStdGripper?: number;
  maxnorm?: number;
  axis: string[];
  closeGripper?: number;
  json?: boolean;
}

/** Options only a V-JEPA 2-AC model takes (a LeWM run refuses them). */
export const AC_ONLY = [
  'tokensNpy',
  'statesNpy',
  'extrinsicsNpy',
  'state',
  'extrinsics',
  'rollout',
  'cemSteps',
  'momentumMean',
  'momentumStd',
  'momentumMeanGripper',
  'momentumStdGripper',
  'maxnorm',
  'axis',
  'closeGripper',
  'json',
] as const;

/** LeWM's options an AC run refuses. */
const LEWM_ONLY = ['actions', 'randomActions', 'horizon', 'iterations', 'actionMean', 'actionStd'] as const;

const finite = (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('expected a number');
  return n;
};

const positive = (v: string) => {
  const n = finite(v);
  if (n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
};

const wholeNumber = (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
};

const collect = (v: string, previous: string[]) => [...previous, v];

export function addAcOptions(cmd: Command): Command {
  return cmd
    .option('--tokens-npy <file>', '2-AC predictor once: normalised frame tokens, float32 [K, T·H·W, D]')
    .option('--states-npy <file>', '2-AC predictor once: end-effector poses, float32 [K, T, 7]')
    .option('--extrinsics-npy <file>', '2-AC predictor once: camera extrinsics, float32 [K, T, 6] (models with the extrinsics token)')
    .option('--state <x,y,z,rx,ry,rz,g>', '2-AC --plan: the current end-effector pose (7 values)')
    .option('--extrinsics <x,y,z,rx,ry,rz>', '2-AC --plan: the camera extrinsics (models with the extrinsics token only)')
    .option('--rollout <n>', '2-AC --plan: actions per plan (default 2)', positiveInt)
    .option('--cem-steps <n>', '2-AC --plan: CEM steps (default 10)', positiveInt)
    .option('--momentum-mean <m>', '2-AC --plan: momentum of the xyz mean (default 0.15)', finite)
    .option('--momentum-std <m>', '2-AC --plan: momentum of the xyz std (default 0.15)', finite)
    .option('--momentum-mean-gripper <m>', '2-AC --plan: momentum of the gripper mean (default 0.15)', finite)
    .option('--momentum-std-gripper <m>', '2-AC --plan: momentum of the gripper std (default 0.15)', finite)
    .option('--maxnorm <v>', '2-AC --plan: clip of each xyz delta (default 0.05)', positive)
    .option('--axis <i=v>', '2-AC --plan: hold sampled axis i (0..3: x, y, z, gripper) at v; repeatable or a comma list', collect, [])
    .option('--close-gripper <step>', '2-AC --plan: close the gripper from this rollout step on', wholeNumber)
    .option('--json', '2-AC --plan: print one JSON object (actions, energy, iterations, settings) on stdout');
}

/** True when the user gave the option (not commander's default). */
export function given(cmd: Command, name: string): boolean {
  const source = cmd.getOptionValueSource(name);
  return source !== undefined && source !== 'default';
}

export function flagName(cmd: Command, name: string): string {
  return cmd.options.find((o) => o.attributeName() === name)?.long ?? name;
}

const numberList = (text: string, what: string, width: number) => {
  const values = text.split(',').map((s) => {
    const v = Number(s.trim());
    if (s.trim() === '' || !Number.isFinite(v)) throw new UserError(`${what}: '${s}' is not a number`);
    return v;
  });
  if (values.length !== width) throw new UserError(`${what}: expected ${width} comma-separated values, got ${values.length}`);
  return Float32Array.from(values);
};

/** `--axis 1=0 --axis 2=0.1` or `--axis 1=0,2=0.1` -> { 1: 0, 2: 0.1 }. */
export function parseAxis(entries: readonly string[]): Record<number, number> {
  const axis: Record<number, number> = {};
  for (const entry of entries
    .flatMap((e) => e.split(','))
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^(\d+)\s*=\s*(.+)$/.exec(entry);
    const index = m ? Number(m[1]) : NaN;
    const value = m ? Number(m[2]) : NaN;
    if (!m || index > 3) throw new UserError(`--axis ${entry}: expected i=v with i one of 0..3 (x, y, z, gripper)`);
    if (!Number.isFinite(value)) throw new UserError(`--axis ${entry}: '${m[2]}' is not a number`);
    axis[index] = value;
  }
  return axis;
}

/** The CEM settings from the flags: the wrapper's defaults where the user gave none (LeWM's --samples and --topk defaults do not apply). */
export function acSettings(cmd: Command, flags: AcFlags): AcCemSettings {
  const o: AcCemOptions = {
    ...(given(cmd, 'samples') ? { samples: flags.samples } : {}),
    ...(given(cmd, 'topk') ? { topk: flags.topk } : {}),
    ...(given(cmd, 'seed') ? { seed: flags.seed } : {}),
    ...(flags.rollout !== undefined ? { rollout: flags.rollout } : {}),
    ...(flags.cemSteps !== undefined ? { cemSteps: flags.cemSteps } : {}),
    ...(flags.momentumMean !== undefined ? { momentumMean: flags.momentumMean } : {}),
    ...(flags.momentumStd !== undefined ? { momentumStd: flags.momentumStd } : {}),
    ...(flags.momentumMeanGripper !== undefined ? { momentumMeanGripper: flags.momentumMeanGripper } : {}),
    ...(flags.momentumStdGripper !== undefined ? { momentumStdGripper: flags.momentumStdGripper } : {}),
    ...(flags.maxnorm !== undefined ? { maxnorm: flags.maxnorm } : {}),
    ...(flags.closeGripper !== undefined ? { closeGripper: flags.closeGripper } : {}),
    axis: parseAxis(flags.axis),
  };
  try {
    return acCemSettings(o);
  } catch (err) {
    throw err instanceof RangeError ? new UserError(`--plan: ${err.message}`) : err;
  }
}

interface Rows {
  data: Float32Array;
  candidates: number;
  rows: number;
}

/** A float32 .npy of [rows, width] or [K, rows, width]; `expected` names the shape in the refusal. */
function readRows(file: string, flag: string, width: number, expected: string, rows?: number): Rows {
  const npy = readNpy(file);
  const s = npy.shape;
  const ok = npy.dtype === 'float32' && (s.length === 2 || s.length === 3) && s.at(-1) === width && (rows === undefined || s.at(-2) === rows);
  if (!ok) throw new UserError(`${flag} ${file}: expected float32 ${expected}, got ${npy.dtype} [${s.join(', ')}]`);
  return { data: npy.data as Float32Array, candidates: s.length === 3 ? s[0]! : 1, rows: s.at(-2)! };
}

/** The model as a session; its AC world model runs the predictor and the planner. */
function openAc(flags: AcFlags): Promise<ModelSession> {
  return openSession(flags.model, flags, {
    actionConditioned: {
      ...(flags.threads ? { threads: flags.threads } : {}),
      ...(flags.flash === false ? { noFlash: true } : {}),
      ...(flags.kvF16 ? { kv: 'f16' as const } : flags.kvF32 ? { kv: 'f32' as const } : {}),
    },
    // ModelInput repeats a still to a video family's frames; the AC encoder takes one frame (as a 2-frame clip), so the notice does not apply.
    notice: () => {},
  });
}

/** The teacher-forced predictor: tokens, actions and states (and extrinsics) from .npy files -> [K, T·H·W, D]. */
async function predictOnce(spec: ModelSpec, flags: AcFlags): Promise<void> {
  const p = spec.pred?.kind === 'ac' ? spec.pred : null;
  if (!p) throw new UserError(`${flags.model} has no V-JEPA 2-AC predictor`);
  const missing = (['tokensNpy', 'actionsNpy', 'statesNpy'] as const).filter((k) => flags[k] === undefined);
  if (missing.length > 0)
    throw new UserError('a V-JEPA 2-AC model runs the predictor on --tokens-npy, --actions-npy and --states-npy (all three), or plans with --plan');
  if (!flags.output) throw new UserError('give -o FILE.npy for the predictor output [K, T·H·W, D]');
  if (p.extrinsics && flags.extrinsicsNpy === undefined)
    throw new UserError(`${flags.model} has the extrinsics token: give --extrinsics-npy float32 [K, T, ${p.actionDim - 1}]`);
  if (!p.extrinsics && flags.extrinsicsNpy !== undefined) throw new UserError(`${flags.model} has no extrinsics token; drop --extrinsics-npy`);
  for (const [file, flag] of [
    [flags.tokensNpy!, '--tokens-npy'],
    [flags.actionsNpy!, '--actions-npy'],
    [flags.statesNpy!, '--states-npy'],
    ...(flags.extrinsicsNpy ? [[flags.extrinsicsNpy, '--extrinsics-npy']] : []),
  ] as const)
    checkInputFile(file, flag);

  const hw = spec.enc.gridSize * spec.enc.gridSize;
  const D = spec.enc.embedDim;
  const actions = readRows(flags.actionsNpy!, '--actions-npy', p.actionDim, `[1, T, ${p.actionDim}] or [K, T, ${p.actionDim}]`);
  const K = actions.candidates;
  const T = actions.rows;
  if (T > p.maxSteps) throw new UserError(`--actions-npy ${flags.actionsNpy}: ${T} steps; the predictor takes 1..${p.maxSteps}`);
  const states = readRows(flags.statesNpy!, '--states-npy', p.stateDim, `[${K}, ${T}, ${p.stateDim}] (as --actions-npy: K candidates of T steps)`, T);
  const tokens = readRows(
    flags.tokensNpy!,
    '--tokens-npy',
    D,
    `[${K}, ${T * hw}, ${D}] (K candidates, T·H·W = ${T}·${hw} tokens of width ${D})`,
    T * hw,
  );
  const extrinsics = flags.extrinsicsNpy
    ? readRows(flags.extrinsicsNpy, '--extrinsics-npy', p.actionDim - 1, `[${K}, ${T}, ${p.actionDim - 1}]`, T)
    : undefined;
  const others: [Rows, string][] = [
    [states, '--states-npy'],
    [tokens, '--tokens-npy'],
  ];
  if (extrinsics) others.push([extrinsics, '--extrinsics-npy']);
  for (const [r, flag] of others) if (r.candidates !== K) throw new UserError(`${flag}: ${r.candidates} candidate(s), --actions-npy has ${K}`);

  const session = await openAc(flags);
  try {
    const wm = session.actionConditioned();
    const t0 = performance.now();
    const out = await wm.predict({
      candidates: K,
      steps: T,
      tokens: tokens.data,
      actions: actions.data,
      states: states.data,
      ...(extrinsics ? { extrinsics: extrinsics.data } : {}),
    });
    writeFileSync(flags.output, encodeNpy(out, [K, T * hw, D]));
    say(
      `predicted [${K}, ${T * hw}, ${D}] (${K} candidate(s) x ${T} step(s)) in ${((performance.now() - t0) / 1000).toFixed(2)} s -> ${flags.output}`,
    );
    if (flags.refCheck !== undefined)
      checkAgainstReference(wm.model, { what: 'predictor output', modality: 'video' }, out, [K, T * hw, D], flags.refCheck);
  } finally {
    await session.dispose();
  }
}

/** The first frame of a preprocessed still ([C, H, W], or [C, T, H, W] for a video family). */
function firstFrame(t: ItemTensor): Float32Array {
  if (t.shape.length === 3) return t.data;
  const [C, T, H, W] = t.shape as [number, number, number, number];
  const plane = H * W;
  const out = new Float32Array(C * plane);
  for (let c = 0; c < C; c++) out.set(t.data.subarray(c * T * plane, c * T * plane + plane), c * plane);
  return out;
}

const ACTION_COLUMNS = ['dx', 'dy', 'dz', 'drx', 'dry', 'drz', 'gripper'];

async function plan(cmd: Command, spec: ModelSpec, flags: AcFlags): Promise<void> {
  const p = spec.pred?.kind === 'ac' ? spec.pred : null;
  if (!p) throw new UserError(`${flags.model} has no V-JEPA 2-AC predictor`);
  for (const name of ['tokensNpy', 'actionsNpy', 'statesNpy', 'extrinsicsNpy'] as const)
    if (flags[name] !== undefined) throw new UserError(`${flagName(cmd, name)} is for the predictor alone; --plan takes --image, --goal and --state`);
  const images = flags.image ?? [];
  if (images.length !== 1) throw new UserError('a V-JEPA 2-AC --plan takes one --image (the current frame)');
  if (flags.state === undefined) throw new UserError('a V-JEPA 2-AC --plan needs --state x,y,z,rx,ry,rz,g (the current end-effector pose)');
  const pose = numberList(flags.state, '--state', AC_ACTION_DIM);
  if (p.extrinsics && flags.extrinsics === undefined)
    throw new UserError(`${flags.model} has the extrinsics token: --plan needs --extrinsics x,y,z,rx,ry,rz`);
  if (!p.extrinsics && flags.extrinsics !== undefined) throw new UserError(`${flags.model} has no extrinsics token; drop --extrinsics`);
  const extrinsics = flags.extrinsics !== undefined ? numberList(flags.extrinsics, '--extrinsics', p.actionDim - 1) : undefined;
  const s = acSettings(cmd, flags);
  checkInputFile(images[0]!, '--image');
  checkInputFile(flags.goal!, '--goal');

  const session = await openAc(flags);
  try {
    const wm = session.actionConditioned();
    const input = session.input;
    const [now, goal] = await Promise.all([input.image(images[0]!), input.image(flags.goal!)]);
    const a = firstFrame(now!);
    const pixels = new Float32Array(2 * a.length);
    pixels.set(a, 0);
    pixels.set(firstFrame(goal!), a.length);
    const n = wm.tokensPerFrame * wm.embedDim;
    const t0 = performance.now();
    const tokens = await wm.encodeFrames(pixels, 2);
    if (!flags.json) say(`encoded the frame and the goal in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    const t1 = performance.now();
    const result = await wm.plan({
      ...s,
      context: tokens.subarray(0, n),
      goal: tokens.subarray(n, 2 * n),
      pose,
      ...(extrinsics ? { extrinsics } : {}),
      onIteration: (it) => {
        if (!flags.json)
          say(
            `CEM step ${it.iteration + 1}/${s.cemSteps}: best energy ${it.bestCost.toFixed(6)}, mean ${it.meanCost.toFixed(6)}, ${((performance.now() - t1) / 1000).toFixed(2)} s`,
          );
      },
    });
    const seconds = (performance.now() - t1) / 1000;
    const A = AC_ACTION_DIM;
    const rows = Array.from({ length: s.rollout }, (_, h) => Array.from(result.actions.subarray(h * A, (h + 1) * A)));
    if (flags.output) writeFileSync(flags.output, encodeNpy(result.actions, [s.rollout, A]));
    if (flags.json) {
      const json = {
        actions: rows,
        energy: result.energy,
        iterations: result.iterations.map((it) => ({ step: it.iteration + 1, best_energy: it.bestCost, mean_energy: it.meanCost })),
        settings: {
          rollout: s.rollout,
          samples: s.samples,
          topk: s.topk,
          cem_steps: s.cemSteps,
          momentum_mean: s.momentumMean,
          momentum_std: s.momentumStd,
          momentum_mean_gripper: s.momentumMeanGripper,
          momentum_std_gripper: s.momentumStdGripper,
          maxnorm: s.maxnorm,
          axis: s.axis,
          close_gripper: s.closeGripper,
          seed: s.seed,
        },
      };
      process.stdout.write(`${JSON.stringify(json)}\n`);
      return;
    }
    const cell = (v: string) => v.padStart(10);
    printLines(
      `${'step'.padEnd(4)} ${ACTION_COLUMNS.map(cell).join(' ')}`,
      ...rows.map((r, h) => `${String(h + 1).padEnd(4)} ${r.map((v) => cell(v.toFixed(5))).join(' ')}`),
      `energy ${result.energy.toFixed(6)} (CEM ${s.samples} samples x ${s.cemSteps} steps, top ${s.topk}, rollout ${s.rollout}: ${seconds.toFixed(2)} s)`,
    );
  } finally {
    await session.dispose();
  }
}

/** The AC path of `jepa worldmodel`; `spec` is the model's (read from its header). */
export async function runAcWorldModel(cmd: Command, spec: ModelSpec, flags: AcFlags): Promise<void> {
  for (const name of LEWM_ONLY)
    if (given(cmd, name)) throw new UserError(`${flagName(cmd, name)} is for LeWM models; ${flags.model} is a V-JEPA 2-AC model`);
  try {
    if (flags.plan) await plan(cmd, spec, flags);
    else {
      if (flags.image !== undefined || flags.goal !== undefined)
        throw new UserError('--image and --goal are for --plan; the V-JEPA 2-AC predictor alone takes --tokens-npy, --actions-npy and --states-npy');
      for (const name of ['state', 'extrinsics', 'json'] as const)
        if (flags[name] !== undefined) throw new UserError(`${flagName(cmd, name)} is for --plan`);
      await predictOnce(spec, flags);
    }
  } catch (err) {
    throw err instanceof WorldModelError ? new UserError(err.message) : err;
  }
}
