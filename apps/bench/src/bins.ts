// The apps that jepa-bench runs as child processes, found as its dependencies: the same files in a
// checkout of the repository (apps/*/dist) and in an installed tree (node_modules/@jepa/*/dist).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The `jepa` command line's entry (apps/cli/dist/main.js). */
export const cliMain = (): string => require.resolve('@jepa/cli/main');

/** The `jepa-quantize` entry (apps/quantize/dist/main.js). */
export const quantizeMain = (): string => require.resolve('@jepa/quantize/main');
