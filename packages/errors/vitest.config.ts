import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@jepa/errors',
    include: ['test/**/*.test.ts'],
  },
});
