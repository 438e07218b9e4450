import { describe, expect, it } from 'vitest';
import { ERROR_KINDS, EXIT_CODE, HTTP_STATUS, JepaError, errorKind, isUserFacing } from '../src/index.js';

class SubError extends JepaError {}

describe('JepaError', () => {
  it('keeps code, message, kind and cause, and names itself after its class', () => {
    const cause = new Error('below');
    const e = new SubError('SOME_CODE', 'what went wrong', { cause, kind: 'budget' });
    expect([e.code, e.message, e.kind, e.cause, e.name]).toEqual(['SOME_CODE', 'what went wrong', 'budget', cause, 'SubError']);
    expect(e).toBeInstanceOf(Error);
    expect(errorKind(e)).toBe('budget');
  });

  it('defaults to an input error with no cause', () => {
    const e = new JepaError('X', 'm');
    expect(e.kind).toBe('input');
    expect('cause' in e).toBe(false);
    expect(isUserFacing(e)).toBe(true);
  });

  it('treats anything else as internal', () => {
    expect(errorKind(new TypeError('x'))).toBe('internal');
    expect(errorKind('a string')).toBe('internal');
    expect(isUserFacing(new Error('x'))).toBe(false);
    expect(isUserFacing(new JepaError('X', 'm', { kind: 'internal' }))).toBe(false);
  });

  it('maps every kind to an exit code and an HTTP status, internal alone to 1 and 500', () => {
    for (const k of ERROR_KINDS) {
      expect(EXIT_CODE[k]).toBe(k === 'internal' ? 1 : 2);
      expect(HTTP_STATUS[k]).toBeGreaterThanOrEqual(400);
    }
    expect(Object.keys(EXIT_CODE).sort()).toEqual([...ERROR_KINDS].sort());
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_KINDS].sort());
    expect(HTTP_STATUS.internal).toBe(500);
  });
});

describe("a subclass's code table", () => {
  class TableError extends JepaError {
    constructor(code: string, message: string, options = {}) {
      super(code, message, options, { SLOW: 'timeout', HUGE: 'budget' });
    }
  }

  it('gives each listed code its kind, any other code input, and an explicit kind wins', () => {
    expect(new TableError('SLOW', 'm').kind).toBe('timeout');
    expect(new TableError('HUGE', 'm').kind).toBe('budget');
    expect(new TableError('OTHER', 'm').kind).toBe('input');
    expect(new TableError('SLOW', 'm', { kind: 'internal' }).kind).toBe('internal');
  });
});
