import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@jepa/bench',
    include: ['test/**/*.test.ts'],
    // about 10 minutes: the root config's 'slow' project runs it (pnpm test runs every project); the
    // sanitizer job likewise runs as the root config's 'sanitize' project
    exclude: [...configDefaults.exclude, 'test/gpu-check-dry-run.test.ts', 'test/sanitize.test.ts'],
    testTimeout: 60_000,
  },
});
