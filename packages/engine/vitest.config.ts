import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@jepa/engine',
    include: ['test/**/*.test.ts'],
  },
});
