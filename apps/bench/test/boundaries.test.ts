// The import boundaries of scripts/check-boundaries.mjs, run in CI through this test: the repository
// has no violation, and the checker does report each rule broken in a small tree laid out as a workspace.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const checker = join(root, 'scripts/check-boundaries.mjs');

function check(tree: string) {
  const r = spawnSync(process.execPath, [checker, tree], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const fixture = mkdtempSync(join(tmpdir(), 'jepa-boundaries-'));
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(fixture, path)), { recursive: true });
  writeFileSync(join(fixture, path), text);
}

function pkg(dir: string, name: string): void {
  write(`${dir}/package.json`, JSON.stringify({ name, exports: { '.': './dist/index.js', './package.json': './package.json' } }));
  write(`${dir}/src/index.ts`, 'export const x = 1;\n');
}

describe('import boundaries', () => {
  it('the repository keeps them', () => {
    const r = check(root);
    expect(r.stderr, r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('the checker reports each broken rule, and passes what the rules allow', () => {
    for (const [dir, name] of [
      ['packages/errors', '@jepa/errors'],
      ['packages/gguf', '@jepa/gguf'],
      ['packages/graph', '@jepa/graph'],
      ['packages/search', '@jepa/search'],
      ['packages/engine', '@jepa/engine'],
      ['packages/corpus', '@jepa/corpus'],
      ['packages/server', '@jepa/server'],
      ['packages/mcp', '@jepa/mcp'],
      ['packages/testing', '@jepa/testing'],
      ['apps/cli', '@jepa/cli'],
    ] as const)
      pkg(dir, name);
    write('packages/errors/src/up.ts', "import { x } from '@jepa/graph';\nexport const y = x;\n");
    write('packages/graph/src/a.ts', "import { b } from './b.js';\nexport const a = () => b;\n");
    write('packages/graph/src/b.ts', "import type { a } from './a.js';\nexport const b: typeof a | null = null;\n");
    write('packages/graph/src/deep.ts', "export { x } from '@jepa/gguf/src/index.js';\n");
    write('packages/graph/test/leaves.test.ts', "import { x } from '../../gguf/src/index.js';\nexport const y = x;\n");
    write('packages/mcp/src/http.ts', "const s = await import('@jepa/server');\nexport default s;\n");
    // the index library knows nothing of the engine; the engine's search operation imports it
    write('packages/search/src/embed.ts', "import type { Engine } from '@jepa/engine';\nexport type E = Engine;\n");
    write('packages/engine/src/search.ts', "export * from '@jepa/search';\n");
    write('packages/corpus/src/kit.ts', "export * from '@jepa/testing';\n");
    write('packages/corpus/test/kit.test.ts', "import '@jepa/testing';\nimport '@jepa/mcp';\n");
    write('packages/gguf/scripts/forge.ts', "import '@jepa/testing';\n");
    write('apps/cli/src/commands/serve.ts', "import '@jepa/server';\nimport '@jepa/corpus';\n");
    write('apps/cli/src/commands/features.ts', "import '@jepa/server';\n");
    write('apps/cli/src/commands/embed.ts', 'export const run = (m) => m.createContext();\n');
    write('packages/corpus/src/load.ts', 'export const load = (M, p) => M.load(p);\nexport const own = (Model, p) => Model.load(p);\n');
    write('packages/graph/src/switch.ts', 'export const on = process.env.JEPA_X;\n');
    write('packages/graph/src/runtime-options.ts', 'export const env = () => process.env;\n');

    const r = check(fixture);
    expect(r.status).toBe(1);
    const found = r.stderr
      .split('\n')
      .filter((l) => /^\S+:\d+: /.test(l))
      .map((l) => l.replace(/: '.*$|: circular.*$/, ''));
    expect(found).toEqual([
      'apps/cli/src/commands/embed.ts:1: one path',
      'apps/cli/src/commands/features.ts:1: front ends',
      'packages/corpus/src/kit.ts:1: testing',
      'packages/corpus/src/load.ts:2: one path',
      'packages/errors/src/up.ts:1: layers',
      'packages/graph/src/a.ts:1: cycles',
      'packages/graph/src/deep.ts:1: internals',
      'packages/graph/src/switch.ts:1: environment',
      'packages/graph/test/leaves.test.ts:1: internals',
      'packages/mcp/src/http.ts:1: front ends',
      'packages/mcp/src/http.ts:1: layers',
      'packages/search/src/embed.ts:1: layers',
    ]);
    expect(r.stderr).toContain('circular imports among src/a.ts, src/b.ts');
  });
});
