// The session against the layers it owns: its vectors are the encoder's own output pooled, whatever the
// input's form (a file, its bytes, a tensor) and however the inputs batch; refusals name their field;
// disposal waits for the call in flight and refuses the next.
import { readFileSync } from 'node:fs';
import { Model } from '@jepa/graph';
import { ModelInput } from '@jepa/input';
import { DEMO_MODEL, LEWM, SAMPLE_JPG, seededPng } from '@jepa/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelSession, SessionError } from '../src/index.js';

const LEWM_MODEL = `${LEWM}/model.gguf`;

describe('ModelSession', () => {
  let session: ModelSession;
  /** The same file through the layers below the session: Model, ModelInput, an encoder context. */
  let model: Model;
  let direct: (bytes: Uint8Array) => Promise<Float32Array>;

  beforeAll(async () => {
    session = await ModelSession.load(DEMO_MODEL, { threads: 2 });
    model = await Model.load(DEMO_MODEL, { threads: 2 });
    const input = new ModelInput(model.spec);
    const ctx = model.createContext();
    direct = async (bytes) => {
      const t = await input.imageBytes(bytes);
      return (await ctx.encode({ data: t.data, shape: [1, ...t.shape] })).pool('mean');
    };
  });
  afterAll(async () => {
    await session?.dispose();
    await model?.dispose();
  });

  it("gives the encoder's own pooled output, from a file, its bytes or its tensor alike", async () => {
    const bytes = readFileSync(SAMPLE_JPG);
    const tensor = await session.input.image(SAMPLE_JPG);
    const [fromFile, fromBytes, fromTensor] = await session.embed([SAMPLE_JPG, bytes, tensor]);
    const expected = await direct(bytes);
    for (const v of [fromFile!, fromBytes!, fromTensor!]) {
      expect(v.shape).toEqual([model.spec.enc.embedDim]);
      expect(v.values).toEqual(expected);
    }
    // negative control: another image is another vector
    expect((await session.embed([seededPng(48, 48, 7)]))[0]!.values).not.toEqual(expected);
  });

  it('batches inputs of one shape together and keeps their order, with the bits of each alone', async () => {
    const images = [1, 2, 3].map((s) => seededPng(40, 56, s));
    const together = await session.embed(images);
    for (const [i, image] of images.entries()) expect(together[i]!.values).toEqual(await direct(image));
  });

  it('normalises to unit length when asked, and pools every token with pool none', async () => {
    const [unit] = await session.embed([SAMPLE_JPG], { normalize: true });
    expect(Math.hypot(...unit!.values)).toBeCloseTo(1, 5);
    const [tokens] = await session.embed([SAMPLE_JPG], { pool: 'none' });
    expect(tokens!.shape[1]).toBe(model.spec.enc.embedDim);
    expect(tokens!.shape[0]).toBeGreaterThan(1);
  });

  it('refuses a pool or a part the model lacks, naming the field', async () => {
    expect(() => session.choosePool('cls', '--pool')).toThrow(SessionError);
    expect(() => session.choosePool('cls', '--pool')).toThrow(/^--pool: vjepa2 models have no CLS token/);
    await expect(session.embed([SAMPLE_JPG], { pool: 'pooler' })).rejects.toMatchObject({ kind: 'input', param: 'pool' });
    expect(() => session.head()).toThrow(expect.objectContaining({ code: 'unsupported_model', param: 'model' }));
    expect(() => session.world()).toThrow(/is not a LeWorldModel/);
    await expect(session.encodeBatch([])).rejects.toThrow(RangeError);
  });

  it("LeWM's state is the projector over the encoder's CLS row", async () => {
    const lewm = await ModelSession.load(LEWM_MODEL, { threads: 2 });
    try {
      const tensor = await lewm.input.imageBytes(seededPng(32, 32, 3));
      const [state] = await lewm.embed([tensor], { pool: 'lewm' });
      const out = await lewm.encodeBatch([tensor]);
      const projected = await lewm.world().project(out.pool('cls'), 1);
      expect(state!.values).toEqual(projected);
      expect(state!.shape).toEqual([lewm.world().embedDim]);
      expect(state!.values).not.toEqual((await lewm.embed([tensor], { pool: 'cls' }))[0]!.values);
    } finally {
      await lewm.dispose();
    }
  });

  it('disposal waits for the call in flight, then refuses new ones', async () => {
    const own = await ModelSession.load(DEMO_MODEL, { threads: 2 });
    const running = own.embed([SAMPLE_JPG]);
    const disposed = own.dispose();
    await expect(running).resolves.toHaveLength(1);
    await disposed;
    await expect(own.embed([SAMPLE_JPG])).rejects.toMatchObject({ code: 'DISPOSED' });
  });
});
