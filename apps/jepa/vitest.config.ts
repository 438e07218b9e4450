import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'jepa',
    include: ['test/**/*.test.ts'],
    // packs every package and installs the tarballs with npm in a fresh project
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
