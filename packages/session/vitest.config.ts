import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@jepa/session',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
