// Debugging a port as a user does it: jepa embed --dump-dir and --layers, jepa compare, and
// jepa worldmodel --ref-check, with their exit codes (0 pass, 3 compared and failed, 2 cannot compare).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel, loadModelSpec } from '@jepa/gguf';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { DEMO_MODEL, REFERENCE, runCli, SAMPLE_JPG } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const demo = DEMO_MODEL;
const image = SAMPLE_JPG;
const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-debug-'));
const nLayer = loadModelSpec(demo).enc.nLayer;

function jepa(...args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const ok = (r: ReturnType<typeof jepa>) => expect(r.code, r.err).toBe(0);
const bits = (path: string) => {
  const a = readNpy(path).data as Float32Array;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
};

interface DumpIndex {
  layers: number;
  stages: { file: string; stage: string; shape: number[] }[];
}
const indexOf = (dir: string): DumpIndex => JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));

/** A copy of `path` with one token (row along the last axis) negated. */
function perturbed(path: string, token: number): string {
  const npy = readNpy(path);
  const data = Float32Array.from(npy.data as Float32Array);
  const dim = npy.shape.at(-1)!;
  for (let d = 0; d < dim; d++) data[token * dim + d] = -data[token * dim + d]!;
  const out = join(tmp, `perturbed-${Math.random().toString(36).slice(2)}.npy`);
  writeFileSync(out, encodeNpy(data, npy.shape));
  return out;
}

describe('jepa embed --dump-dir', () => {
  const dir = join(tmp, 'dump');
  const tokens = join(tmp, 'tokens.npy');

  it('writes 2 + n_layer stages; the last is the tokens --pool none writes, bit for bit; the first is not', () => {
    ok(jepa('embed', '-m', demo, image, '--pool', 'none', '-o', tokens, '--dump-dir', dir));
    const index = indexOf(dir);
    expect(index.layers).toBe(nLayer);
    expect(index.stages.map((s) => s.file)).toEqual([
      '00-patch-embed.npy',
      ...Array.from({ length: nLayer }, (_, l) => `${String(l + 1).padStart(2, '0')}-block-${String(l).padStart(2, '0')}.npy`),
      `${String(nLayer + 1).padStart(2, '0')}-final-norm.npy`,
    ]);
    const [, n, d] = readNpy(tokens).shape;
    for (const s of index.stages) expect(readNpy(join(dir, s.file)).shape).toEqual([n, d]);
    expect(bits(join(dir, index.stages.at(-1)!.file)).equals(bits(tokens))).toBe(true);
    expect(bits(join(dir, index.stages[0]!.file)).equals(bits(tokens))).toBe(false);
  });

  it('takes one input: two images, or a tensor of two items, are refused before the model loads', () => {
    const two = jepa('embed', '-m', demo, image, image, '--dump-dir', join(tmp, 'two'));
    expect(two.code).toBe(2);
    expect(two.err).toMatch(/^jepa: --dump-dir .*two: a dump takes one input .*; this run has 2\n$/);
    const batch = join(tmp, 'batch.npy');
    writeFileSync(batch, encodeNpy(new Float32Array(2 * 3 * 8 * 64 * 64), [2, 3, 8, 64, 64]));
    const r = jepa('embed', '-m', demo, '--input-npy', batch, '--dump-dir', join(tmp, 'batch'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/this run has 2/);
    expect(existsSync(join(tmp, 'batch'))).toBe(false);
  });
});

describe('jepa embed --layers', () => {
  it('--layers n_layer is the full encoder; --layers N keeps the first N blocks bit for bit, then the final norm', () => {
    const full = join(tmp, 'full.npy');
    const all = join(tmp, 'all.npy');
    ok(jepa('embed', '-m', demo, image, '--pool', 'none', '-o', full));
    ok(jepa('embed', '-m', demo, image, '--pool', 'none', '-o', all, '--layers', String(nLayer)));
    expect(bits(all).equals(bits(full))).toBe(true);

    const n = nLayer - 1;
    const short = join(tmp, 'short.npy');
    const shortDump = join(tmp, 'short-dump');
    const fullDump = join(tmp, 'full-dump');
    ok(jepa('embed', '-m', demo, image, '--pool', 'none', '-o', short, '--layers', String(n), '--dump-dir', shortDump));
    ok(jepa('embed', '-m', demo, image, '--dump-dir', fullDump));
    const shortStages = indexOf(shortDump).stages;
    const fullStages = indexOf(fullDump).stages;
    expect(shortStages.length).toBe(2 + n);
    expect(shortStages[n]!.stage).toBe(fullStages[n]!.stage);
    expect(bits(join(shortDump, shortStages[n]!.file)).equals(bits(join(fullDump, fullStages[n]!.file)))).toBe(true);
    expect(bits(join(shortDump, shortStages.at(-1)!.file)).equals(bits(short))).toBe(true);
    expect(bits(short).equals(bits(full))).toBe(false);
  });

  it('refuses 0 and more blocks than the encoder has, naming the flag', () => {
    const zero = jepa('embed', '-m', demo, image, '--layers', '0');
    expect(zero.code).toBe(2);
    expect(zero.err).toMatch(/--layers/);
    const over = jepa('embed', '-m', demo, image, '--layers', String(nLayer + 1));
    expect(over.code).toBe(2);
    expect(over.err).toMatch(new RegExp(`^jepa: --layers ${nLayer + 1}: .* has ${nLayer} encoder blocks\\n$`));
  });
});

describe('jepa compare', () => {
  const a = join(tmp, 'cmp-a.npy');
  writeFileSync(
    a,
    encodeNpy(
      Float32Array.from({ length: 6 * 16 }, (_, i) => Math.sin(i * 0.31) + 0.1),
      [2, 3, 16],
    ),
  );

  it('identical files pass (exit 0); one token negated fails (exit 3)', () => {
    const same = jepa('compare', a, a);
    expect(same.code, same.err).toBe(0);
    expect(same.out).toMatch(/^\[cpu\/image\/f32\] N=6 min cos 1\.000000 .*: pass\n$/);
    const bad = perturbed(a, 4);
    const r = jepa('compare', bad, a);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/FAIL: worst token 4 cosine -1\.000000/);
    expect(r.err).toMatch(/^jepa: .* against .*cmp-a\.npy: outside the cpu\/image\/f32 bars\n$/);
  });

  it('--json gives the verdict as one object; --tier picks the row', () => {
    const r = jepa('compare', a, a, '--json', '--tier', 'gpu/video/f16');
    expect(r.code, r.err).toBe(0);
    const v = JSON.parse(r.out);
    expect(v).toMatchObject({ pass: true, row: 'gpu/video/f16', shape: [2, 3, 16], tokens: 6, minCos: 1, relMax: 0, failures: [] });
    // the low-bit row is advisory on cosine: a negated token passes it, and fails the f32 row
    const bad = perturbed(a, 0);
    expect(jepa('compare', bad, a, '--tier', 'low-bit').code).toBe(0);
    expect(jepa('compare', bad, a, '--tier', 'f32').code).toBe(3);
  });

  it('cannot compare (exit 2, one line): shapes differ, not float32, an unknown tier, a missing file', () => {
    const b = join(tmp, 'cmp-b.npy');
    writeFileSync(b, encodeNpy(new Float32Array(6 * 16), [6, 16]));
    const shapes = jepa('compare', a, b);
    expect(shapes.code).toBe(2);
    expect(shapes.err).toMatch(/^jepa: .*cmp-a\.npy against .*cmp-b\.npy: shapes differ: \[2, 3, 16\] against \[6, 16\]\n$/);
    const u8 = join(tmp, 'cmp-u8.npy');
    writeFileSync(u8, encodeNpy(new Uint8Array(6 * 16), [2, 3, 16]));
    const dtype = jepa('compare', a, u8);
    expect(dtype.code).toBe(2);
    expect(dtype.err).toMatch(/^jepa: .*cmp-u8\.npy: expected a non-empty float32 array, got uint8 \[2, 3, 16\]\n$/);
    const tier = jepa('compare', a, a, '--tier', 'f64');
    expect(tier.code).toBe(2);
    expect(tier.err).toMatch(/^jepa: --tier f64: not a policy row; .*\n$/);
    const missing = jepa('compare', a, join(tmp, 'none.npy'));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/none\.npy: no such file or folder/);
  });
});

describe('jepa worldmodel --ref-check', () => {
  const lewm = forgeModel('lewm', { path: join(tmp, 'lewm.gguf') }).path;
  const roll = (...extra: string[]) => jepa('worldmodel', '-m', lewm, '--image', image, '--random-actions', '2', '--horizon', '3', ...extra);

  it('passes against its own stored rollout and fails (exit 3) against a perturbed one', () => {
    const ref = join(tmp, 'rollout.npy');
    ok(roll('-o', ref));
    const same = roll('--ref-check', ref);
    expect(same.code, same.err).toBe(0);
    expect(same.err).toMatch(/ref-check .*rollout\.npy: \[cpu\/image\/f32\] N=8 min cos 1\.000000 .*: pass/);
    const bad = roll('--ref-check', perturbed(ref, 5));
    expect(bad.code).toBe(3);
    expect(bad.err).toMatch(/FAIL: worst token 5/);
    expect(bad.err).toMatch(/jepa: --ref-check .*: the rollout is outside the cpu\/image\/f32 bars\n$/);
  });

  it('refuses a reference of another shape, and --plan', () => {
    const ref = join(tmp, 'rollout-3.npy');
    ok(jepa('worldmodel', '-m', lewm, '--image', image, '--random-actions', '3', '--horizon', '3', '-o', ref));
    const shape = roll('--ref-check', ref);
    expect(shape.code).toBe(2);
    expect(shape.err).toMatch(/shapes differ: \[2, 4, \d+\] against \[3, 4, \d+\]\n$/);
    const plan = jepa('worldmodel', '-m', lewm, '--image', image, '--plan', '--goal', image, '--ref-check', ref);
    expect(plan.code).toBe(2);
    expect(plan.err).toMatch(/^jepa: --ref-check judges a rollout; --plan makes a plan\n$/);
  });
});

describe('jepa worldmodel --ref-check on V-JEPA 2-AC', () => {
  // the h32 case of the float64 reference (Meta's layout), converted by the CLI
  const ref = join(REFERENCE, 'vjepa2_ac', 'h32');
  const ac = join(tmp, 'ac-h32.gguf');
  const predict = (...extra: string[]) =>
    jepa(
      'worldmodel',
      '-m',
      ac,
      ...['--tokens-npy', join(ref, 'tokens.npy'), '--actions-npy', join(ref, 'actions.npy'), '--states-npy', join(ref, 'states.npy')],
      '-o',
      join(tmp, 'ac-pred.npy'),
      ...extra,
    );

  it('judges the predictor output: the reference passes, its perturbed copy fails (exit 3)', () => {
    ok(jepa('convert', join(ref, 'vjepa2-ac.pt'), '-o', ac, '--img-size', '48', '--n-head', '2', '--pred-n-head', '2'));
    const same = predict('--ref-check', join(ref, 'pred.npy'));
    expect(same.code, same.err).toBe(0);
    expect(same.err).toMatch(/ref-check .*pred\.npy: \[cpu\/video\/f32\] N=27 min cos .*: pass/);
    const bad = predict('--ref-check', join(ref, 'pred_perturbed.npy'));
    expect(bad.code).toBe(3);
    expect(bad.err).toMatch(/jepa: --ref-check .*pred_perturbed\.npy: the predictor output is outside the cpu\/video\/f32 bars\n$/);
    const shape = predict('--ref-check', join(ref, 'actions.npy'));
    expect(shape.code).toBe(2);
    expect(shape.err).toMatch(/the predictor output against the reference: shapes differ: \[1, 27, 64\] against \[1, 3, 7\]\n$/);
  });
});
