// The CLI's own refusal is a JepaError too, and aboutFile names the user's file in a refusal of its
// contents (a GgufError or WorldModelError that does not name it), by class, not by name string.
import { JepaError, isUserFacing } from '@jepa/errors';
import { GgufError } from '@jepa/gguf';
import { NativeError } from '@jepa/native';
import { WorldModelError } from '@jepa/worldmodel';
import { describe, expect, it } from 'vitest';
import { aboutFile, aboutFileAsync, UserError } from '../src/user-error.js';

const path = '/models/m.gguf';

/** The message of what aboutFile rethrows when loading `path` throws `err`. */
function rethrown(err: Error): string {
  try {
    aboutFile('-m', path, () => {
      throw err;
    });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a throw');
}

describe('UserError', () => {
  it('is a user-facing JepaError of kind input with its exit code', () => {
    const e = new UserError('1 of 2 inputs failed', 3);
    expect(e).toBeInstanceOf(JepaError);
    expect([e.name, e.kind, e.exitCode, e.message]).toEqual(['UserError', 'input', 3, '1 of 2 inputs failed']);
    expect(isUserFacing(e)).toBe(true);
    expect(new UserError('x').exitCode).toBe(2);
  });
});

describe('aboutFile', () => {
  it("prefixes a refusal of the file's contents that does not name it", async () => {
    expect(rethrown(new GgufError('GGUF_BAD_MAGIC', 'not a GGUF file: starts with 6e 6f 74 20'))).toBe(
      '-m: not a GGUF file: starts with 6e 6f 74 20',
    );
    const wm = new WorldModelError('NO_PREDICTOR', 'has no action-conditioned (LeWM) predictor');
    await expect(aboutFileAsync('-m', path, () => Promise.reject(wm))).rejects.toThrow('-m: has no action-conditioned (LeWM) predictor');
  });

  it('leaves one that names the file, one not about the file, and a fault of the engine alone', () => {
    expect(rethrown(new GgufError('JEPA_KEY_MISSING', `${path} has no jepa.family`))).toBe(`${path} has no jepa.family`);
    expect(rethrown(new NativeError('NO_DEVICE', 'no GPU 3 (GPUs: none in this build)'))).toBe('no GPU 3 (GPUs: none in this build)');
    expect(rethrown(new GgufError('GGUF_WRITE_SIZE', 'tensor t got 4 of its 8 bytes'))).toBe('tensor t got 4 of its 8 bytes');
  });
});
