// World models register with the Model they run over: disposing the model disposes them once their
// running call has finished; one that owns its model (load()) disposes it in turn.
import { resolve } from 'node:path';
import { forgeModel, tinyAcPredictor } from '@jepa/gguf';
import { Model } from '@jepa/graph';
import { describe, expect, it } from 'vitest';
import { AcWorldModel, WorldModel } from '../src/index.js';

const lewm = resolve(import.meta.dirname, '../../../fixtures/reference-heads/lewm/model.gguf');
const wave = (n: number, seed: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.61 + seed) * 1.3);
const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const refused = { name: 'GraphError', code: 'DISPOSED', kind: 'unavailable' };

describe('world model lifecycle', () => {
  it("disposing the model waits for a world model's running rollout, then disposes it and its encoder", async () => {
    const model = await Model.load(lewm, { threads: 2 });
    const wm = new WorldModel(model, { threads: 2 });
    const { embedDim: Dp, actionDim: A } = wm;
    const initial = { data: wave(Dp, 1), candidates: 1, steps: 1 };
    const actions = { data: wave(8 * 6 * A, 2), candidates: 8, steps: 6 };
    const before = await wm.rollout(initial, actions);
    const size = model.spec.enc.imgSize;
    await wm.encode({ data: wave(3 * size * size, 3), shape: [1, 3, size, size] });
    let finished = false;
    const inFlight = wm.rollout(initial, actions).then((out) => {
      finished = true;
      return out;
    });
    await new Promise((r) => setImmediate(r));
    await model.dispose();
    expect(finished).toBe(true);
    expect(bits(await inFlight).equals(bits(before))).toBe(true);
    expect(wm.disposed).toBe(true);
    await expect(wm.rollout(initial, actions)).rejects.toMatchObject({ ...refused, message: 'the model was disposed' });
    await wm.dispose();
  });

  it('a world model disposed on its own leaves its model usable; one that owns its model disposes it', async () => {
    const model = await Model.load(forgeModel('vjepa2', { edit: (h) => ({ ...h, pred: tinyAcPredictor(h.enc) }) }).path, { threads: 2 });
    const ac = new AcWorldModel(model, { threads: 2 });
    await ac.dispose();
    expect([ac.disposed, model.disposed]).toEqual([true, false]);
    expect(() => new AcWorldModel(model)).not.toThrow();
    await model.dispose();
    expect(() => new AcWorldModel(model)).toThrowError(expect.objectContaining(refused));

    const owner = await WorldModel.load(lewm, { threads: 2 });
    await owner[Symbol.asyncDispose]();
    expect([owner.disposed, owner.model.disposed]).toEqual([true, true]);
    await owner.dispose();
  });
});
