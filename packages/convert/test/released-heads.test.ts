// Meta's timm-style checkpoints record no head count: the converter takes it from the family definition's
// releasedHeads by width, and refuses a width no release has unless --n-head gives it.
import { FAMILIES, FAMILY_DEFINITIONS } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { ConvertError } from '../src/errors.js';
import { headsFor } from '../src/mappings/meta-encoder.js';

describe('released head counts', () => {
  it("are the families' released architectures (families.md)", () => {
    expect(FAMILY_DEFINITIONS.ijepa.releasedHeads).toEqual({ 1280: 16, 1408: 16 });
    expect(FAMILY_DEFINITIONS.vjepa.releasedHeads).toEqual({ 1024: 16, 1280: 16 });
    expect(FAMILY_DEFINITIONS.vjepa2.releasedHeads).toEqual({ 1024: 16, 1280: 16, 1408: 22 });
    expect(FAMILY_DEFINITIONS.vjepa2_1.releasedHeads).toEqual({ 768: 12, 1024: 16, 1408: 22, 1664: 26 });
  });

  it.each(FAMILIES)('%s: headsFor gives each released width its heads, an override first, and refuses other widths', (family) => {
    for (const [width, heads] of Object.entries(FAMILY_DEFINITIONS[family].releasedHeads)) {
      expect(headsFor(family, Number(width), {})).toEqual({
        nHead: heads,
        note: `${heads} heads: the released ${family} architecture of width ${width}`,
      });
      expect(headsFor(family, Number(width), { nHead: 2 })).toEqual({ nHead: 2, note: null });
    }
    expect(() => headsFor(family, 96, {})).toThrow(ConvertError);
    expect(() => headsFor(family, 96, {})).toThrow(/width 96 is not a released architecture; give it \(--n-head\)/);
  });
});
