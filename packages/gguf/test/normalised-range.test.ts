// A recipe whose mean / std send an 8-bit pixel past ±10⁴ is refused when the file is read: the engine
// fuzzer's finding (nan-*: a mean of 3.4e38 or a std of 1e-45 loaded, then encoded to NaN tokens).
import { forgeModelBytes, GgufError, bufferSource, loadModelSpecFromSource } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';

const f32s = (...v: number[]) => ({ type: 'array' as const, itemType: 'f32' as const, value: Float32Array.from(v) });
const spec = (metadata: Parameters<typeof forgeModelBytes>[1]) => loadModelSpecFromSource(bufferSource(forgeModelBytes('hfvit', metadata).bytes));

describe('the normalised pixel range of a recipe', () => {
  it.each([
    [
      'a huge mean',
      { 'jepa.pre.mean': f32s(3.4e38, 0.456, 0.406) },
      /^jepa\.pre\.mean\[0\] 3\.3\d*e\+38 and jepa\.pre\.std\[0\] 0\.22\d* map 8-bit pixels to \[-1\.48e\+39, -1\.48e\+39\]; a recipe keeps them within ±10000 \(ImageNet's: \[-2\.1, 2\.6\]\)$/,
    ],
    [
      'a subnormal std',
      { 'jepa.pre.std': f32s(0.229, 0.224, 1e-45) },
      /^jepa\.pre\.mean\[2\] 0\.40\d* and jepa\.pre\.std\[2\] 1\.4\d*e-45 map 8-bit pixels to \[-2\.90e\+44, 4\.24e\+44\]/,
    ],
    ['a tiny std', { 'jepa.pre.std': f32s(1e-5, 0.224, 0.225) }, /^jepa\.pre\.mean\[0\] .* map 8-bit pixels to \[-4\.85e\+4, 5\.15e\+4\]/],
  ])('%s is refused with JEPA_RANGE', (_what, metadata, message) => {
    let err: unknown;
    try {
      spec({ metadata });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GgufError);
    expect(err).toMatchObject({ code: 'JEPA_RANGE' });
    expect((err as Error).message).toMatch(message);
  });

  it('ImageNet, 0.5 / 0.5 and a std of 1e-3 (±10³) load', () => {
    expect(spec({}).pre.std.length).toBe(3);
    expect(spec({ metadata: { 'jepa.pre.mean': f32s(0.5, 0.5, 0.5), 'jepa.pre.std': f32s(0.5, 0.5, 0.5) } }).pre.mean[0]).toBe(0.5);
    expect(spec({ metadata: { 'jepa.pre.std': f32s(1e-3, 1e-3, 1e-3) } }).pre.std[0]).toBeCloseTo(1e-3);
  });
});
