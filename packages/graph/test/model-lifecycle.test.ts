// Model.dispose(), node-llama-cpp's way: it refuses calls that have not started, waits for the ones
// running (whose results stay intact), disposes the contexts made over the model, then releases the
// weights; a context disposed on its own is forgotten by its model.
import { forgeModel } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { GraphError, Model, type EncoderInput } from '../src/index.js';

function image(batch: number, size: number): EncoderInput {
  const shape = [batch, 3, size, size];
  return { data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i * 0.37) * 1.5), shape };
}

const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const disposedError = (message: string) => ({ name: 'GraphError', code: 'DISPOSED', kind: 'unavailable', message });

describe('Model.dispose', () => {
  it('waits for an encode in flight, whose tokens are intact, then disposes every context of the model', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const encoder = model.createContext();
    const naive = model.createContext({ noFlash: true });
    const input = image(1, 192); // 2306 tokens: tens of ms
    const before = await encoder.encode(input);
    let finished = false;
    const inFlight = encoder.encode(input).then((out) => {
      finished = true;
      return out;
    });
    await new Promise((r) => setImmediate(r)); // its job has started: the graph is computing
    const disposal = model.dispose();
    expect(model.disposed).toBe(true);
    await disposal;
    expect(finished).toBe(true);
    expect(bits((await inFlight).tokens).equals(bits(before.tokens))).toBe(true);
    expect([encoder.disposed, naive.disposed]).toEqual([true, true]);
    expect(() => model.weights).toThrowError(expect.objectContaining(disposedError('the model was disposed')));
  });

  it('refuses calls after it and contexts made after it; disposing twice is fine', async () => {
    const model = await Model.load(forgeModel('hfvit').path, { threads: 2 });
    const encoder = model.createContext();
    const first = model.dispose();
    expect(model.dispose()).toBe(first);
    await first;
    await model[Symbol.asyncDispose]();
    await expect(encoder.encode(image(1, 16))).rejects.toMatchObject(disposedError('the model was disposed'));
    const refused = (() => {
      try {
        model.createContext();
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(GraphError);
    expect(refused).toMatchObject(disposedError('the model was disposed'));
  });

  it('a context disposed on its own is refused and forgotten; the model and its other contexts go on', async () => {
    const model = await Model.load(forgeModel('vjepa2').path, { threads: 2 });
    const clip = { data: Float32Array.from({ length: 3 * 4 * 8 * 8 }, (_, i) => Math.sin(i * 0.3)), shape: [1, 3, 4, 8, 8] };
    const encoder = model.createContext();
    const tokens = await encoder.encode(clip);
    const head = model.createHeadContext();
    const predictor = model.createPredictorContext();
    await head.dispose();
    await head.dispose();
    expect(head.disposed).toBe(true);
    await expect(head.logits(tokens)).rejects.toMatchObject(disposedError('the context was disposed'));
    expect(model.disposed).toBe(false);
    expect(bits((await encoder.encode(clip)).tokens).equals(bits(tokens.tokens))).toBe(true);
    await model.dispose();
    expect([encoder.disposed, predictor.disposed]).toEqual([true, true]);
  });
});
