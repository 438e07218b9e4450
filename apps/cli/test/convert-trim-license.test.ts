// jepa convert --no-predictor / --license as a user runs them: the trimmed file loads (jepa info) with no
// predictor, carries the licence info shows, and embeds to the same bits as the full conversion.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IJEPA_PRED, runCli } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'jepa-convert-trim-'));
const src = join(IJEPA_PRED, 'ijepa_pred_fixture.pth.tar');
const env = { JEPA_DEVICE: 'cpu' };

function jepa(args: string[]) {
  const r = runCli(args, { env });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function convert(name: string, ...flags: string[]): string {
  const out = join(work, name);
  const r = jepa(['convert', src, '-o', out, '--n-head', '2', ...flags]);
  expect(r.code, r.err).toBe(0);
  return out;
}

function info(path: string): { license: string | null; pred: unknown; tensors: { name: string }[] } {
  const r = jepa(['info', path, '--json']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

function embedBytes(model: string, name: string): Buffer {
  const out = join(work, name);
  const r = jepa(['embed', '-m', model, '--input-npy', join(IJEPA_PRED, 'input.npy'), '--pool', 'none', '--threads', '1', '-o', out]);
  expect(r.code, r.err).toBe(0);
  return readFileSync(out);
}

describe('jepa convert --no-predictor, --license; jepa info', () => {
  it('the encoder alone loads, has no predictor, and embeds to the bits of the full conversion', () => {
    const full = convert('full.gguf');
    const trimmed = convert('enc.gguf', '--no-predictor');
    const a = info(full);
    const b = info(trimmed);
    expect(a.pred).not.toBeNull();
    expect(a.tensors.some((t) => t.name.startsWith('pred.'))).toBe(true);
    expect(b.pred).toBeNull();
    expect(b.tensors.filter((t) => t.name.startsWith('pred.'))).toEqual([]);
    expect(embedBytes(trimmed, 'enc.npy').equals(embedBytes(full, 'full.npy'))).toBe(true);
  });

  it('info shows the family licence, and --license replaces it', () => {
    const path = convert('lic.gguf', '--no-predictor');
    expect(info(path).license).toBe('CC-BY-NC-4.0');
    expect(jepa(['info', path, '--no-tensors']).out).toMatch(/^family: +ijepa {2}\(license CC-BY-NC-4\.0\)$/m);
    const mine = convert('mine.gguf', '--no-predictor', '--license', 'LicenseRef-internal');
    expect(info(mine).license).toBe('LicenseRef-internal');
  });

  it('an empty or multi-line --license is refused in one line naming the flag', () => {
    for (const bad of ['', 'MIT\nApache-2.0']) {
      const r = jepa(['convert', src, '-o', join(work, 'bad.gguf'), '--n-head', '2', '--license', bad]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^jepa: --license (is empty|must be a single line)[^\n]*\n$/);
    }
  });
});
