// `jepa convert` as a user meets it on hostile checkpoints: a child process, one `jepa: …` line on
// stderr, a non-zero exit, no output file; --allow-nonfinite converts a NaN checkpoint and says so.
// Needs the built CLI (apps/cli/dist); fails with "build first" when it has not been built.
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REFERENCE, runCli } from '@jepa/testing';
import { describe, expect, it } from 'vitest';
import { ZIP_ENTRY_LIMIT_ENV } from '../src/readers/zip/zip-limits.js';
import { fixturePath, tempDir, tempFile } from './fixtures.js';
import { tensorsOf, writeSafetensors } from './synthetic-checkpoint.js';
import { buildZip, storedEntries } from './zip-builder.js';

function jepa(args: string[], env: Record<string, string> = {}) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function expectOneLineRefusal(r: { code: number | null; err: string }, message: RegExp): void {
  expect(r.code).not.toBe(0);
  expect(r.err).toMatch(/^jepa: [^\n]*\n$/);
  expect(r.err).toMatch(message);
}

describe('jepa convert on hostile checkpoints', () => {
  it('refuses a NaN weight in one line and writes nothing; --allow-nonfinite converts it', async () => {
    const dir = join(tempDir(), 'hfvit');
    cpSync(join(REFERENCE, 'hfvit'), dir, { recursive: true });
    const tensors = await tensorsOf(join(dir, 'model.safetensors'));
    tensors.get('encoder.layer.1.attention.attention.value.weight')!.data[3] = Number.NaN;
    writeSafetensors(join(dir, 'model.safetensors'), tensors);
    const outDir = tempDir();
    const out = join(outDir, 'nan.gguf');
    const refused = jepa(['convert', dir, '-o', out]);
    expectOneLineRefusal(
      refused,
      /tensor 'enc\.blk\.1\.attn\.qkv\.weight' .*holds NaN \(first at element 4611; the only non-finite value\);.*--allow-nonfinite converts it anyway$/m,
    );
    expect(readdirSync(outDir)).toEqual([]);
    const allowed = jepa(['convert', dir, '-o', out, '--allow-nonfinite']);
    expect(allowed.code, allowed.err).toBe(0);
    expect(allowed.err).toMatch(/NaN\/Inf values \(--allow-nonfinite\): enc\.blk\.1\.attn\.qkv\.weight \(1\)/);
    expect(existsSync(out)).toBe(true);
  });

  it('refuses a deflate bomb by its declared size, naming the limit', () => {
    const entries = storedEntries(fixturePath('torch', 'forged-ok.pt'));
    const specs = [...entries].map(([name, data]) => ({ name, data, deflate: name.endsWith('data.pkl') }));
    specs.find((s) => s.deflate)!.data = new Uint8Array(64 * 2 ** 20);
    const bomb = tempFile('bomb.pt', buildZip(specs));
    const outDir = tempDir();
    const r = jepa(['convert', bomb, '-o', join(outDir, 'b.gguf')], { [ZIP_ENTRY_LIMIT_ENV]: '8' });
    expectOneLineRefusal(r, /bomb\.pt: entry 'archive\/data\.pkl' declares 64\.0 MiB uncompressed .*the limit is JEPA_MAX_ZIP_ENTRY_MIB=8/);
    expect(readdirSync(outDir)).toEqual([]);
  });

  it('refuses the legacy torch format without advising torch.load', () => {
    const r = jepa(['convert', fixturePath('torch', 'legacy.pt'), '-o', join(tempDir(), 'l.gguf')]);
    expectOneLineRefusal(r, /cannot be read safely/);
    expect(r.err).not.toMatch(/re-save/);
  });
});

describe('jepa convert of a V-JEPA 2-AC .pt', () => {
  const ac = resolve(__dirname, 'data', 'meta-vjepa2-ac.pt');

  it('converts encoder + AC predictor, printing the entry taken; --entry takes another; an absent one is refused', () => {
    const outDir = tempDir();
    const r = jepa(['convert', ac, '-o', join(outDir, 'ac.gguf'), '--n-head', '2', '--pred-n-head', '2']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/vjepa2 from .*V-JEPA 2-AC.* \(entry 'encoder'\)/);
    expect(r.err).toMatch(/Meta's AC loader/);
    expect(r.out.trim()).toBe(join(outDir, 'ac.gguf'));
    const t = jepa([
      'convert',
      ac,
      '-o',
      join(outDir, 't.gguf'),
      '--n-head',
      '2',
      '--pred-n-head',
      '2',
      '--entry',
      'target_encoder',
      '--ac-extrinsics',
    ]);
    expect(t.code, t.err).toBe(0);
    expect(t.err).toMatch(/\(entry 'target_encoder'\)/);
    const refused = jepa(['convert', ac, '-o', join(outDir, 'e.gguf'), '--n-head', '2', '--entry', 'ema_encoder']);
    expectOneLineRefusal(refused, /--entry 'ema_encoder': .* its entries are \[encoder, target_encoder, predictor, opt, epoch\]/);
  });
});
