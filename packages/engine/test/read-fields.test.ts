import { describe, expect, it } from 'vitest';
import { type EngineError, classifyFields, embedFields, planFields, readFields } from '../src/index.js';

const refusal = (body: Record<string, unknown>, shape: Parameters<typeof readFields>[1]) => {
  try {
    readFields(body, shape);
  } catch (err) {
    const e = err as EngineError;
    return { param: e.param, message: e.message, kind: e.kind };
  }
  throw new Error('not refused');
};

describe('readFields: one schema per request shape', () => {
  it('keeps the fields given, leaves out absent and null ones', () => {
    expect(readFields({ pool: 'mean', normalize: null }, embedFields)).toEqual({ pool: 'mean' });
    expect(readFields({ horizon: 7, seed: -3, action_mean: [0, 1], action_std: [1, 2] }, planFields)).toEqual({
      horizon: 7,
      seed: -3,
      action_mean: [0, 1],
      action_std: [1, 2],
    });
  });

  it('names the field and what it must be', () => {
    expect(refusal({ pool: 'max' }, embedFields)).toEqual({
      param: 'pool',
      message: 'pool: must be one of "mean", "cls", "cls+mean", "none", "lewm", "pooler", "aligned"',
      kind: 'input',
    });
    expect(refusal({ top_k: 0 }, classifyFields).message).toBe('top_k: must be >= 1');
    expect(refusal({ top_k: 2.5 }, classifyFields).message).toBe('top_k: must be an integer');
    expect(refusal({ samples: 5000 }, planFields).message).toBe('samples: must be <= 4096');
    expect(refusal({ logits: 'yes' }, classifyFields).message).toBe('logits: must be a boolean');
  });

  it('names the element of an array that is wrong', () => {
    expect(refusal({ action_mean: [0, 'x'] }, planFields)).toMatchObject({ param: 'action_mean[1]', message: 'action_mean[1]: must be a number' });
  });
});
