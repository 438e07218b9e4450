import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@jepa/text',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
