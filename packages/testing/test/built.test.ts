// A missing build output fails the test that needs it, naming the build step and the path.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireBuilt } from '../src/built.js';
import { REPO_ROOT } from '../src/paths.js';

describe('requireBuilt', () => {
  it('returns a path that exists', () => {
    const path = join(REPO_ROOT, 'package.json');
    expect(requireBuilt(path, 'the root manifest')).toBe(path);
  });

  it('throws "build first" with the path from the repository root and what needs it', () => {
    expect(() => requireBuilt(join(REPO_ROOT, 'apps/cli/dist/no-such-main.js'), 'the jepa CLI')).toThrow(
      'build first: pnpm build (apps/cli/dist/no-such-main.js is missing): the jepa CLI',
    );
  });
});
