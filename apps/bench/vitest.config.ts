import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@jepa/bench',
    include: ['test/**/*.test.ts'],
    // about 10 minutes: the root config's 'slow' project runs it (pnpm test runs every project)
    exclude: [...configDefaults.exclude, 'test/gpu-check-dry-run.test.ts'],
    testTimeout: 60_000,
  },
});
