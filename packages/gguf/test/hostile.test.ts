import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@jepa/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { concatParts, HOSTILE_CASES, writeParts, type HostileCase, type Outcome } from '../scripts/hostile-cases.js';
import { GgufError } from '../src/errors.js';
import { readGgufFromSource } from '../src/gguf/reader.js';
import { schemaReadOptions } from '../src/schema/read-policy.js';
import { validateModel } from '../src/validate/validate-model.js';
import { countingSource, HEADER_WINDOW } from './helpers.js';

function withEnv<T>(env: Record<string, string> | undefined, f: () => T): T {
  const saved = Object.fromEntries(Object.keys(env ?? {}).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return f();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Loads bytes the way loadModelSpec does (policy) or with every value materialised (plain), and checks the outcome. */
function check(c: HostileCase, bytes: Uint8Array, expected: Outcome | 'loads', plain: boolean): void {
  const source = countingSource(bytes);
  let caught: unknown;
  let header: ReturnType<typeof readGgufFromSource> | undefined;
  try {
    header = readGgufFromSource(source, plain ? {} : schemaReadOptions());
    validateModel(header, bytes.byteLength);
  } catch (e) {
    caught = e;
  }
  if (expected === 'loads') {
    expect(caught, String(caught)).toBeUndefined();
  } else {
    expect(caught, `${c.name}: expected ${expected.code}`).toBeInstanceOf(GgufError);
    const err = caught as GgufError;
    expect(err.code, err.message).toBe(expected.code);
    expect(err.message).toMatch(expected.message);
    expect(err.message).not.toContain('\n');
    expect(err.message.length).toBeLessThan(400);
  }
  if (!plain) {
    // the policy path sizes nothing by the header: no read above one window, and skipped values are never read
    expect(Math.max(0, ...source.reads.map((r) => r.length))).toBeLessThanOrEqual(HEADER_WINDOW);
  }
}

describe('hostile inputs (scaled down; the same bounds, lowered by env where env-set)', () => {
  for (const c of HOSTILE_CASES) {
    const bytes = () => concatParts(c.build('test'));
    it(`${c.name}: loadModelSpec's path`, () => withEnv(c.testEnv, () => check(c, bytes(), c.expect, false)));
    if (c.expectPlain) it(`${c.name}: plain reader + validateModel`, () => withEnv(c.testEnv, () => check(c, bytes(), c.expectPlain!, true)));
  }

  it('the honest n-frames file loads once its bound is raised, and a skipped foreign key is listed with its extent', () => {
    const frames = HOSTILE_CASES.find((c) => c.name === 'n-frames-65536')!;
    withEnv({ JEPA_MAX_INPUT_MIB: '4' }, () => check(frames, concatParts(frames.build('test')), 'loads', false));
    const foreign = HOSTILE_CASES.find((c) => c.name === 'foreign-strings-16M')!;
    const bytes = concatParts(foreign.build('test'));
    const h = readGgufFromSource(countingSource(bytes), schemaReadOptions());
    expect(h.metadata.has('hostile.strings')).toBe(false);
    expect(h.skipped.get('hostile.strings')).toMatchObject({
      type: 'array',
      itemType: 'string',
      count: 200_000,
      offset: 24 + 8 + 'hostile.strings'.length,
    });
    expect(h.skipped.get('hostile.strings')!.nbytes).toBe(4 + 4 + 8 + 200_000 * 8);
  });

  it('a bad env limit is refused by name', () => {
    const c = HOSTILE_CASES.find((x) => x.name === 'n-frames-65536')!;
    withEnv({ JEPA_MAX_INPUT_MIB: 'lots' }, () => {
      expect(() => validateModel(readGgufFromSource(countingSource(concatParts(c.build('test'))), schemaReadOptions()))).toThrow(
        /JEPA_MAX_INPUT_MIB=lots is not an integer/,
      );
    });
  });
});

/**
 * The CLI takes about a second of CPU to start, so four cases stand for the rest (each case runs in-process above):
 * a budget from the recipe, a count bound, a skipped unknown key, a truncation message.
 */
const THROUGH_CLI = HOSTILE_CASES.filter((c) => ['n-frames-65536', 'labels-140M', 'foreign-strings-140M', 'cut-after-counts'].includes(c.name));

describe('jepa info on the scaled hostile files (the real CLI, built)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jepa-hostile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const c of THROUGH_CLI) {
    it(`${c.name}: ${c.expect === 'loads' ? 'loads' : 'one jepa: line, exit 2'}`, () => {
      const file = join(dir, `${c.name}.gguf`);
      writeParts(file, c.build('test'));
      const r = runCli(['info', '--no-tensors', file], { env: c.testEnv, timeout: 30_000 });
      if (c.expect === 'loads') {
        expect(r.status, r.stderr).toBe(0);
        return;
      }
      expect(r.signal).toBeNull();
      expect(r.status, r.stderr).toBe(2);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith('jepa: ')).toBe(true);
      // the CLI may name the model file before the refusal
      const text = lines[0].slice('jepa: '.length);
      expect(text.startsWith(`${file}: `) ? text.slice(file.length + 2) : text).toMatch(c.expect.message);
    });
  }
});
