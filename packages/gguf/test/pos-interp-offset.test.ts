// jepa.enc.pos_interp_offset: the dinov2 torch.hub files' position resizing. Absent it is 0 (every earlier file),
// it is written only when not 0, and it is refused off a learned table or at 1 and above.
import { describe, expect, it } from 'vitest';
import { forgeModelBytes } from '../src/forge/forge.js';
import { gv } from '../src/gguf/value.js';
import type { ModelHparams } from '../src/schema/model-spec.js';
import { hparamsToMetadata } from '../src/schema/to-metadata.js';
import { expectRefused, load } from './helpers.js';

const offset = (h: ModelHparams): ModelHparams => ({ ...h, enc: { ...h.enc, posInterpOffset: Math.fround(0.1) } });

describe('jepa.enc.pos_interp_offset', () => {
  it('is 0 when absent and not written then', () => {
    const { spec } = load(forgeModelBytes('hfvit', {}).bytes);
    expect(spec.enc.posInterpOffset).toBe(0);
    expect(hparamsToMetadata(spec).map(([k]) => k)).not.toContain('jepa.enc.pos_interp_offset');
  });

  it('round-trips on an hfvit file', () => {
    const { spec } = load(forgeModelBytes('hfvit', { edit: offset }).bytes);
    expect(spec.enc.posInterpOffset).toBe(Math.fround(0.1));
    expect(hparamsToMetadata(spec)).toContainEqual(['jepa.enc.pos_interp_offset', gv.f32(Math.fround(0.1))]);
  });

  it.each([
    {
      what: 'an offset on a sincos table',
      file: () => forgeModelBytes('ijepa', { edit: offset }).bytes,
      code: 'JEPA_INVARIANT',
      names: /jepa\.enc\.pos_interp_offset is set but ijepa has no learned position table/,
    },
    {
      what: 'an offset of 1',
      file: () => forgeModelBytes('hfvit', { metadata: { 'jepa.enc.pos_interp_offset': gv.f32(1) } }).bytes,
      code: 'JEPA_RANGE',
      names: /jepa\.enc\.pos_interp_offset/,
    },
  ] as const)('refuses $what', ({ file, code, names }) => {
    expectRefused(file(), code, names);
  });
});
