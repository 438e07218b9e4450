import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// Every package and app is a project (named after its package.json). `pnpm test` at the root runs
// them all; a package's own `pnpm test` runs `vitest run --project <its name>`.
export default defineConfig({
  test: {
    projects: [`${root}packages/*`, `${root}apps/*`],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
