import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@jepa/hub',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
