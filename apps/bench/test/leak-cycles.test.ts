// Leaks as findings where LeakSanitizer cannot run (inside Node): resident memory across 150
// load / encode / classify / predict / dispose cycles of a forged model stays within 24 MiB of where
// it stood after 30 warm-up cycles. The negative control keeps every model instead of disposing it,
// and must break the same bound.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { REPO_ROOT, requireBuilt } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const url = (p: string) => pathToFileURL(requireBuilt(join(REPO_ROOT, p), p)).href;

function script(keep: boolean): string {
  return `
const { Model, predictorTokens } = await import('${url('packages/graph/dist/index.js')}');
const { forgeModel } = await import('${url('packages/gguf/dist/index.js')}');
const path = forgeModel('vjepa2').path;
const input = { data: new Float32Array(3 * 4 * 16 * 16).map((_, i) => Math.sin(i)), shape: [1, 3, 4, 16, 16] };
const kept = [];
async function cycle() {
  const m = await Model.load(path, { threads: 1 });
  const out = await m.createContext().encode(input);
  await m.createHeadContext().classify(out);
  const { tokens, dim } = predictorTokens(out);
  await m.createPredictorContext().predict({ tokens, dim, contextIds: [0, 1, 2, 3], targetIds: [4, 5, 6, 7] });
  if (${keep}) kept.push(m, out); else await m.dispose();
}
const rss = () => { globalThis.gc(); return process.memoryUsage().rss / 2 ** 20; };
for (let i = 0; i < 30; i++) await cycle();
const before = rss();
for (let i = 0; i < 150; i++) await cycle();
const after = rss();
console.log(JSON.stringify({ before, after, growth: after - before }));
`;
}

async function growth(keep: boolean): Promise<number> {
  const { stdout } = await run(process.execPath, ['--expose-gc', '--input-type=module', '-e', script(keep)], { cwd: REPO_ROOT });
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { growth: number }).growth;
}

describe('resident memory across create / dispose cycles', () => {
  it('150 cycles of a forged V-JEPA 2 with head and predictor grow RSS by under 24 MiB', async () => {
    expect(await growth(false)).toBeLessThan(24);
  }, 180_000);

  it('negative control: keeping every model breaks the bound', async () => {
    expect(await growth(true)).toBeGreaterThan(24);
  }, 180_000);
});
