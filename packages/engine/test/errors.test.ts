import { JepaError } from '@jepa/errors';
import { describe, expect, it } from 'vitest';
import { type EngineError, badField, itemFailure } from '../src/index.js';

describe('itemFailure: an error while working on a field', () => {
  it("is the caller's, naming the field, when the engine's packages say it is about the input", () => {
    const e = itemFailure('input[1].image', new JepaError('corrupt_image', 'not an image')) as EngineError;
    expect([e.code, e.kind, e.param, e.message]).toEqual(['invalid_input', 'input', 'input[1].image', 'input[1].image: not an image']);
  });

  it('says too large for a budget', () => {
    expect((itemFailure('input', new JepaError('OVER_BUDGET', 'needs 9 GiB', { kind: 'budget' })) as EngineError).code).toBe('input_too_large');
  });

  it('passes an internal fault and its own refusals on as they are', () => {
    const bug = new TypeError('x is undefined');
    expect(itemFailure('input', bug)).toBe(bug);
    const internal = new JepaError('COMPUTE', 'ggml failed', { kind: 'internal' });
    expect(itemFailure('input', internal)).toBe(internal);
    const own = badField('top_k', 'must be >= 1');
    expect(itemFailure('input', own)).toBe(own);
  });
});
