// GraphRunner.graph: a graph the backend refuses with flash attention on is rebuilt with it off
// (ggml's CUDA flash kernels take only some head sizes); a refusal without flash, or of both, stands.
import { forgeModel, GgmlType } from '@jepa/gguf';
import { createContext } from '@jepa/native';
import { afterAll, describe, expect, it } from 'vitest';
import { type BuiltGraph, GraphRunner, Model } from '../src/index.js';

const model = await Model.load(forgeModel('hfvit').path, { threads: 1 });
afterAll(() => model.dispose());

/** A one-node graph: an i32 product (which no backend runs) when `refused`, else an f32 one. */
function product(refused: boolean): BuiltGraph & { refused: boolean } {
  const ctx = createContext(8);
  const type = refused ? GgmlType.I32 : GgmlType.F32;
  const out = ctx.mulMat(ctx.newTensor(type, [16, 4]), ctx.newTensor(type, [16, 3]));
  out.name = refused ? 'refused_product' : 'product';
  return { ctx, graph: ctx.buildGraph([out]), refused };
}

describe('GraphRunner.graph', () => {
  it('rebuilds a graph refused with flash on, with flash off, once, and caches that one', () => {
    const runner = new GraphRunner<ReturnType<typeof product>>(model);
    const asked: boolean[] = [];
    const build = (flash: boolean) => {
      asked.push(flash);
      return product(flash);
    };
    const g = runner.graph('k', build, true);
    expect(g.refused).toBe(false);
    expect(runner.graph('k', build, true)).toBe(g);
    expect(asked).toEqual([true, false]);
    runner.dispose();
  });

  it('a refusal with flash off is not retried, and a refusal of both builds stands', () => {
    const runner = new GraphRunner<ReturnType<typeof product>>(model);
    const asked: boolean[] = [];
    const always = (flash: boolean) => {
      asked.push(flash);
      return product(true);
    };
    const refusal = expect.objectContaining({ code: 'UNSUPPORTED_OP', message: expect.stringMatching(/'refused_product' MUL_MAT/) });
    expect(() => runner.graph('off', always)).toThrowError(refusal);
    expect(asked).toEqual([false]);
    expect(() => runner.graph('on', always, true)).toThrowError(refusal);
    expect(asked).toEqual([false, true, false]);
    runner.dispose();
  });
});
