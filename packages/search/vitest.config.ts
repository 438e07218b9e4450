import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@jepa/search',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
