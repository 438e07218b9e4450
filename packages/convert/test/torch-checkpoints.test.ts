import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isTuple, openCheckpoint, type Checkpoint, type PyValue } from '../src/index.js';
import { fixturePath, hexOf, manifest, type ExpectedTensor } from './fixtures.js';

function contiguous(shape: number[]): number[] {
  const strides: number[] = [];
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

async function expectTensorsMatch(checkpoint: Checkpoint, expected: Record<string, ExpectedTensor>): Promise<void> {
  expect([...checkpoint.tensors.keys()].sort()).toEqual(Object.keys(expected).sort());
  for (const [name, want] of Object.entries(expected)) {
    const ref = checkpoint.tensors.get(name)!;
    expect(ref.name).toBe(name);
    expect(ref.dtype, name).toBe(want.dtype);
    expect([...ref.shape], name).toEqual(want.shape);
    expect(ref.byteLength, name).toBe(want.hex.length / 2);
    if (ref.location.kind === 'torch') {
      expect([...ref.location.strides], name).toEqual(want.strides);
      expect(ref.location.elementOffset, name).toBe(want.storageOffset);
    }
    expect(hexOf(await ref.read()), name).toBe(want.hex);
    expect(hexOf(await ref.readAsFloat32()), name).toBe(want.f32hex);
  }
}

describe('torch zip checkpoints', () => {
  for (const file of Object.keys(manifest.torch)) {
    it(`reads every tensor of ${file} bit-exactly`, async () => {
      const checkpoint = await openCheckpoint(fixturePath('torch', file));
      try {
        expect(checkpoint.format).toBe('torch-zip');
        await expectTensorsMatch(checkpoint, manifest.torch[file]);
      } finally {
        await checkpoint.close();
      }
    });
  }

  it('the fixtures exercise strided views, storage offsets and every storage dtype', () => {
    const tensors = Object.values(manifest.torch['nested.pt']);
    expect(tensors.some((t) => t.shape.length > 1 && t.strides.join() !== contiguous(t.shape).join())).toBe(true);
    expect(tensors.some((t) => t.storageOffset > 0)).toBe(true);
    expect(new Set(tensors.map((t) => t.dtype))).toEqual(new Set(['f32', 'f16', 'bf16', 'i64', 'f64', 'i32', 'i16', 'i8', 'u8', 'bool']));
  });

  it('exposes the unpickled root with plain values intact', async () => {
    const checkpoint = await openCheckpoint(fixturePath('torch', 'nested.pt'));
    try {
      const root = checkpoint.root as Map<PyValue, PyValue>;
      expect(root.get('epoch')).toBe(manifest.scalars.epoch);
      expect(root.get('loss')).toBe(manifest.scalars.loss);
      expect(root.get('batch_size')).toBe(manifest.scalars.batch_size);
      expect(root.get('huge')).toBe(BigInt(manifest.scalars.huge));
      expect(root.get('negative')).toBe(manifest.scalars.negative);
      expect(root.get('scaler')).toBeNull();
      const numpy = root.get('numpy') as Map<PyValue, PyValue>;
      expect(Object.fromEntries(numpy)).toEqual({ f8: 0.125, f4: Math.fround(0.1), i8: -5, u1: 200, b1: true, f2: 1.5 });
      const config = root.get('config') as Map<PyValue, PyValue>;
      expect(config.get('model_name')).toBe('vit_tiny');
      expect(config.get('flags')).toEqual([true, false, null]);
      const ratio = config.get('ratio') as PyValue[];
      expect(isTuple(ratio)).toBe(true);
      expect([...ratio]).toEqual([1.5, -2.0]);
      const opt = root.get('opt') as Map<PyValue, PyValue>;
      const state = opt.get('state') as Map<PyValue, PyValue>;
      expect((state.get(0) as Map<PyValue, PyValue>).get('step')).toBe(10);
      const group = (opt.get('param_groups') as PyValue[])[0] as Map<PyValue, PyValue>;
      expect(group.get('lr')).toBe(1e-3);
      expect([...(group.get('betas') as PyValue[])]).toEqual([0.9, 0.999]);
      // Tensor leaves of the root are the same lazy refs as in `tensors`.
      const encoder = root.get('encoder') as Map<PyValue, PyValue>;
      const leaf = encoder.get('module.pos_embed');
      expect(leaf).toBe(checkpoint.tensors.get('encoder.module.pos_embed'));
      expect(checkpoint.metadata).toEqual({ archive: 'nested', version: '3' });
    } finally {
      await checkpoint.close();
    }
  });

  it('reads numpy scalars pickled with protocol 4', async () => {
    const checkpoint = await openCheckpoint(fixturePath('torch', 'probe-protocol4.pth.tar'));
    expect((checkpoint.root as Map<PyValue, PyValue>).get('best_acc')).toBe(0.75);
    await checkpoint.close();
  });

  it('refuses reads after close', async () => {
    const checkpoint = await openCheckpoint(fixturePath('torch', 'nested.pt'));
    const ref = checkpoint.tensors.get('encoder.module.pos_embed')!;
    await checkpoint.close();
    await expect(ref.read()).rejects.toMatchObject({ code: 'CONVERT_CLOSED' });
  });
});

describe('zip container variants', () => {
  it('zip64.pt really carries ZIP64 extra fields (so its bit-exact read above covers them)', () => {
    const bytes = readFileSync(fixturePath('torch', 'zip64.pt'));
    let marked = 0;
    for (let i = bytes.indexOf(Buffer.from('PK\x01\x02', 'latin1')); i >= 0; i = bytes.indexOf(Buffer.from('PK\x01\x02', 'latin1'), i + 4)) {
      if (bytes.readUInt32LE(i + 20) === 0xffffffff || bytes.readUInt32LE(i + 42) === 0xffffffff) marked++;
    }
    expect(marked).toBeGreaterThan(0);
  });

  it('deflated.pt really holds deflated entries', () => {
    const bytes = readFileSync(fixturePath('torch', 'deflated.pt'));
    const central = bytes.indexOf(Buffer.from('PK\x01\x02', 'latin1'));
    expect(bytes.readUInt16LE(central + 10)).toBe(8);
  });
});
