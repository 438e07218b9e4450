// --allow-nonfinite and --timeout on a model-running command, as a user meets them.
import { closeSync, mkdtempSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel, loadModelSpec } from '@jepa/gguf';
import { encodeNpy, readNpy } from '@jepa/preprocess';
import { runCli } from '@jepa/testing';
import { describe, expect, it } from 'vitest';

const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-hardening-'));

function jepa(...args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A preprocessed [2, 3, 8, 8] tensor for the forged hfvit's 8-pixel input. */
function tensorNpy(): string {
  const path = join(tmp, 'x.npy');
  writeFileSync(
    path,
    encodeNpy(
      Float32Array.from({ length: 2 * 3 * 8 * 8 }, (_, i) => Math.sin(i * 0.37)),
      [2, 3, 8, 8],
    ),
  );
  return path;
}

function nanModel(): string {
  const forged = forgeModel('hfvit');
  const info = loadModelSpec(forged.path).tensors.get('enc.blk.1.attn.qkv.weight')!;
  const fd = openSync(forged.path, 'r+');
  writeSync(fd, new Uint8Array(Uint32Array.of(0x7fc00000).buffer), 0, 4, info.offset + 1234 * 4);
  closeSync(fd);
  return forged.path;
}

describe('--allow-nonfinite', () => {
  it('a model with NaN weights is refused in one line naming the tensor; the flag loads it', () => {
    const model = nanModel();
    const x = tensorNpy();
    const refused = jepa('embed', '-m', model, '--input-npy', x, '-o', join(tmp, 'refused.npy'));
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(
      /^jepa: enc\.blk\.1\.attn\.qkv\.weight holds NaN \(first at element 1234\); the file is damaged or was saved from a diverged run; --allow-nonfinite loads it anyway\n$/,
    );
    const out = join(tmp, 'allowed.npy');
    const allowed = jepa('embed', '-m', model, '--input-npy', x, '-o', out, '--allow-nonfinite');
    expect(allowed.code).toBe(0);
    expect(Array.from(readNpy(out).data as Float32Array).some((v) => !Number.isFinite(v))).toBe(true);
  });
});

describe('--timeout', () => {
  it('an encode past the deadline is one line and exit 2; a generous one changes nothing', () => {
    const model = forgeModel('hfvit').path;
    const x = tensorNpy();
    const late = jepa('embed', '-m', model, '--input-npy', x, '-o', join(tmp, 'late.npy'), '--timeout', '0.000001');
    expect(late.code).toBe(2);
    expect(late.err.trimEnd().split('\n').at(-1)).toMatch(
      /^jepa: the encoder ran past the 0\.001 ms deadline \(timeoutMs, --timeout\) after node \d+ of \d+; nothing was returned$/,
    );
    const a = join(tmp, 'a.npy');
    const b = join(tmp, 'b.npy');
    expect(jepa('embed', '-m', model, '--input-npy', x, '-o', a, '--timeout', '60').code).toBe(0);
    expect(jepa('embed', '-m', model, '--input-npy', x, '-o', b).code).toBe(0);
    expect(Buffer.from((readNpy(a).data as Float32Array).buffer).equals(Buffer.from((readNpy(b).data as Float32Array).buffer))).toBe(true);
  });

  it('refuses a timeout that is not a positive number of seconds', () => {
    const r = jepa('embed', '-m', forgeModel('hfvit').path, '--input-npy', tensorNpy(), '--timeout', '0');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--timeout <seconds>' argument '0' is invalid: expected a positive number of seconds/);
  });
});
