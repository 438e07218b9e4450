// Preloaded into a CLI run by `jepa-bench startup` (node --import): records whether any module of the
// watched packages was resolved, by import or require, and writes it as JSON to
// $JEPA_STARTUP_PROBE_OUT when the process exits. Run apart from the timed runs, which load nothing extra.
import { writeFileSync } from 'node:fs';
import nodeModule from 'node:module';

/** The packages a light command should not load: the HTTP front end's. */
export const WATCHED_PACKAGES = ['fastify'];

interface ResolveResult {
  url: string;
}
type NextResolve = (specifier: string, context: unknown) => ResolveResult;
type RegisterHooks = (hooks: { resolve: (specifier: string, context: unknown, next: NextResolve) => ResolveResult }) => void;
// module.registerHooks (Node 22.15+, 23.5+) is missing from the @types/node the repository pins.
const { registerHooks } = nodeModule as unknown as { registerHooks?: RegisterHooks };

/** Whether this Node can run the probe. */
export const probeSupported = typeof registerHooks === 'function';

const out = process.env.JEPA_STARTUP_PROBE_OUT;
if (out && registerHooks) {
  const loaded = new Set<string>();
  const patterns = WATCHED_PACKAGES.map((name) => ({ name, dir: `/node_modules/${name}/` }));
  registerHooks({
    resolve(specifier, context, next) {
      const result = next(specifier, context);
      for (const p of patterns) if (result.url.includes(p.dir)) loaded.add(p.name);
      return result;
    },
  });
  process.on('exit', () => writeFileSync(out, JSON.stringify({ loaded: [...loaded] })));
}
