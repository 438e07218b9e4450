// jepa worldmodel on a V-JEPA 2-AC model (a forged tiny one: 8x8 px, 2x2 tokens per frame, D 32):
// the teacher-forced predictor writes what AcWorldModel.predict returns, bit for bit; shapes are
// refused in one line naming the expected one; --plan --json is valid, has zero rotations and is
// reproducible from its seed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel, tinyAcPredictor } from '@jepa/gguf';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { AcWorldModel } from '@jepa/worldmodel';
import { pngOf, runCli } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-ac-'));

const forge = (name: string, extrinsics: boolean) =>
  forgeModel('vjepa2', {
    seed: 5,
    path: join(tmp, name),
    edit: (h) => ({ ...h, head: null, labels: null, pred: tinyAcPredictor(h.enc, extrinsics) }),
  }).path;
const model = forge('ac.gguf', false);
const withExtrinsics = forge('ac-ext.gguf', true);

function jepa(...args: string[]) {
  const r = runCli([...args, '-t', '2'], { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const wave = (n: number, seed: number, scale = 1) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + seed) * scale);

function npy(name: string, data: Float32Array, shape: number[]): string {
  const path = join(tmp, name);
  writeFileSync(path, encodeNpy(data, shape));
  return path;
}

/** A 16x16 RGB PNG whose pixels depend on `seed`. */
function png(name: string, seed: number): string {
  const path = join(tmp, name);
  writeFileSync(
    path,
    pngOf(16, 16, (x, y) => (x * 37 + y * 11 + seed * 89) % 256),
  );
  return path;
}

// K 2 candidates of T 3 steps on a 2x2 grid of width 32
const K = 2;
const T = 3;
const HW = 4;
const D = 32;
const tokens = wave(K * T * HW * D, 1);
const actions = wave(K * T * 7, 2, 0.05);
const states = wave(K * T * 7, 3, 0.5);
const tokensNpy = npy('tokens.npy', tokens, [K, T * HW, D]);
const actionsNpy = npy('actions.npy', actions, [K, T, 7]);
const statesNpy = npy('states.npy', states, [K, T, 7]);

describe('jepa worldmodel, V-JEPA 2-AC predictor once', () => {
  it('writes [K, T·H·W, D], equal to AcWorldModel.predict on the same inputs bit for bit', async () => {
    const out = join(tmp, 'pred.npy');
    const r = jepa('worldmodel', '-m', model, '--tokens-npy', tokensNpy, '--actions-npy', actionsNpy, '--states-npy', statesNpy, '-o', out);
    expect(r.err).toMatch(/^jepa: predicted \[2, 12, 32\]/);
    expect(r.code).toBe(0);
    const written = readNpy(out);
    expect(written.dtype).toBe('float32');
    expect(written.shape).toEqual([K, T * HW, D]);
    const wm = await AcWorldModel.load(model, { threads: 2 });
    const lib = await wm.predict({ candidates: K, steps: T, tokens, actions, states });
    wm.dispose();
    expect(Buffer.from((written.data as Float32Array).buffer).equals(Buffer.from(lib.buffer))).toBe(true);
  });

  it('refuses a wrong tokens shape in one line naming the expected shape', () => {
    const bad = npy('bad-tokens.npy', wave(K * T * HW * 16, 4), [K, T * HW, 16]);
    const r = jepa('worldmodel', '-m', model, '--tokens-npy', bad, '--actions-npy', actionsNpy, '--states-npy', statesNpy, '-o', join(tmp, 'x.npy'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: --tokens-npy .*bad-tokens\.npy: expected float32 \[2, 12, 32\] .*got float32 \[2, 12, 16\]\n$/);
  });

  it('refuses states of another step count, extrinsics for a model without the token, and LeWM flags', () => {
    const short = npy('short-states.npy', wave(K * 2 * 7, 5), [K, 2, 7]);
    const r = jepa(
      'worldmodel',
      '-m',
      model,
      '--tokens-npy',
      tokensNpy,
      '--actions-npy',
      actionsNpy,
      '--states-npy',
      short,
      '-o',
      join(tmp, 'x.npy'),
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: --states-npy .*short-states\.npy: expected float32 \[2, 3, 7\] .*got float32 \[2, 2, 7\]\n$/);
    const ext = npy('ext.npy', wave(K * T * 6, 6), [K, T, 6]);
    const e = jepa(
      'worldmodel',
      '-m',
      model,
      '--tokens-npy',
      tokensNpy,
      '--actions-npy',
      actionsNpy,
      '--states-npy',
      statesNpy,
      '--extrinsics-npy',
      ext,
      '-o',
      join(tmp, 'x.npy'),
    );
    expect(e.code).toBe(2);
    expect(e.err).toMatch(/^jepa: .*ac\.gguf has no extrinsics token; drop --extrinsics-npy\n$/);
    const l = jepa('worldmodel', '-m', model, '--random-actions', '3');
    expect(l.code).toBe(2);
    expect(l.err).toMatch(/^jepa: --random-actions is for LeWM models; .*ac\.gguf is a V-JEPA 2-AC model\n$/);
  });
});

describe('jepa worldmodel --plan, V-JEPA 2-AC', () => {
  const now = png('now.png', 1);
  const goal = png('goal.png', 2);
  const plan = (...extra: string[]) =>
    jepa(
      'worldmodel',
      '-m',
      model,
      '--plan',
      '--image',
      now,
      '--goal',
      goal,
      '--state',
      '0.1,0.2,0.3,0,0,0,0',
      '--samples',
      '8',
      '--topk',
      '3',
      '--cem-steps',
      '2',
      ...extra,
    );

  it('prints one JSON plan of rollout rows of 7 with zero rotations and a finite energy; the same seed plans the same', () => {
    const a = plan('--seed', '4', '--json');
    expect(a.code).toBe(0);
    const j = JSON.parse(a.out) as {
      actions: number[][];
      energy: number;
      iterations: { step: number; best_energy: number; mean_energy: number }[];
      settings: Record<string, unknown>;
    };
    expect(j.actions).toHaveLength(2);
    for (const row of j.actions) {
      expect(row).toHaveLength(7);
      expect(row.slice(3, 6)).toEqual([0, 0, 0]);
      for (const v of row.slice(0, 3)) expect(Math.abs(v)).toBeLessThanOrEqual(0.05 + 1e-7);
    }
    expect(Number.isFinite(j.energy)).toBe(true);
    expect(j.iterations.map((it) => it.step)).toEqual([1, 2]);
    expect(j.settings).toMatchObject({ rollout: 2, samples: 8, topk: 3, cem_steps: 2, maxnorm: 0.05, seed: 4 });
    const b = plan('--seed', '4', '--json');
    expect(b.code).toBe(0);
    expect(b.out).toBe(a.out);
  });

  it('reports each CEM step on stderr and prints a table without --json, holding --axis values', () => {
    const r = plan('--rollout', '3', '--axis', '1=0,2=0', '--close-gripper', '1');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/jepa: CEM step 1\/2: best energy [\d.]+, mean [\d.]+, [\d.]+ s\n/);
    expect(r.err).toMatch(/jepa: CEM step 2\/2:/);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^step\s+dx\s+dy\s+dz\s+drx\s+dry\s+drz\s+gripper$/);
    for (const line of lines.slice(1, 4)) {
      const v = line.trim().split(/\s+/).map(Number);
      expect(v[2]).toBe(0);
      expect(v[3]).toBe(0);
    }
    expect(lines[4]).toMatch(/^energy [\d.]+ \(CEM 8 samples x 2 steps, top 3, rollout 3: /);
  });

  it('takes the AC defaults (400 samples, top 10) where LeWM has others, and refuses bad settings', () => {
    const d = jepa('worldmodel', '-m', model, '--plan', '--image', now, '--goal', goal, '--state', '0,0,0,0,0,0,0', '--cem-steps', '1', '--json');
    expect(d.code).toBe(0);
    expect((JSON.parse(d.out) as { settings: Record<string, unknown> }).settings).toMatchObject({
      rollout: 2,
      samples: 400,
      topk: 10,
      momentum_mean: 0.15,
      momentum_std_gripper: 0.15,
      close_gripper: null,
      seed: 0,
    });
    const r = plan('--topk', '9');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: --plan: topk \(9\) cannot exceed samples \(8\)\n$/);
    const axis = plan('--axis', '5=1');
    expect(axis.code).toBe(2);
    expect(axis.err).toMatch(/^jepa: --axis 5=1: expected i=v with i one of 0\.\.3/);
    const state = jepa('worldmodel', '-m', model, '--plan', '--image', now, '--goal', goal, '--state', '1,2,3');
    expect(state.code).toBe(2);
    expect(state.err).toMatch(/^jepa: --state: expected 7 comma-separated values, got 3\n$/);
  });

  it('needs --extrinsics for a model with the extrinsics token, and refuses it for one without', () => {
    const args = [
      'worldmodel',
      '--plan',
      '--image',
      now,
      '--goal',
      goal,
      '--state',
      '0,0,0,0,0,0,0',
      '--samples',
      '4',
      '--topk',
      '2',
      '--cem-steps',
      '1',
    ];
    const need = jepa(...args, '-m', withExtrinsics);
    expect(need.code).toBe(2);
    expect(need.err).toMatch(/^jepa: .*ac-ext\.gguf has the extrinsics token: --plan needs --extrinsics x,y,z,rx,ry,rz\n$/);
    const ok = jepa(...args, '-m', withExtrinsics, '--extrinsics', '0.5,0,0.4,0,0,0', '--json');
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.out) as { actions: number[][] }).actions).toHaveLength(2);
    const refused = jepa(...args, '-m', model, '--extrinsics', '0,0,0,0,0,0');
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/^jepa: .*ac\.gguf has no extrinsics token; drop --extrinsics\n$/);
  });
});
