/**
 * Writes the hostile-input cases of scripts/hostile-cases.ts as .gguf files.
 *   pnpm --filter @jepa/gguf gen:hostile --out DIR [--scale real|test] [--only NAME[,NAME]]
 * At --scale real the giant cases take 0.6–1.1 GB each (about 6 GB in all): delete them when done. Each file is
 * listed with its size and the outcome `jepa info` must have (at the test scale, with the env the test sets).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliOptions } from './args.js';
import { HOSTILE_CASES, writeParts, type Scale } from './hostile-cases.js';

const opts = cliOptions({
  out: { type: 'string', default: 'hostile-gguf' },
  scale: { type: 'string', default: 'test' },
  only: { type: 'string', default: '' },
});
if (opts.scale !== 'real' && opts.scale !== 'test') throw new Error(`--scale must be real or test, got '${opts.scale}'`);
const out = resolve(process.env.INIT_CWD ?? process.cwd(), opts.out);
const only = new Set(opts.only.split(',').filter(Boolean));
mkdirSync(out, { recursive: true });
for (const c of HOSTILE_CASES) {
  if (only.size > 0 && !only.has(c.name)) continue;
  const file = join(out, `${c.name}.gguf`);
  const size = writeParts(file, c.build(opts.scale as Scale));
  const expect = c.expect === 'loads' ? 'loads' : `${c.expect.code} ${c.expect.message.source}`;
  const env =
    opts.scale === 'test' && c.testEnv
      ? ` (env ${Object.entries(c.testEnv)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')})`
      : '';
  console.log(`${file}\t${size} bytes\t${expect}${env}`);
}
