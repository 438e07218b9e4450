// Mappings spell what they measure; the family's definition (@jepa/gguf schema/family/) supplies the rest.
import { FAMILY_DEFINITIONS } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { encoderHparams, type EncoderFields } from '../src/mappings/hparams.js';

const MEASURED: EncoderFields = {
  embedDim: 64,
  nLayer: 2,
  nHead: 4,
  ffnDim: 256,
  patchSize: 16,
  imgSize: 224,
  inChans: 3,
  lnEps: Math.fround(1e-6),
  act: 'gelu',
};

describe('encoderHparams: the family fills what a mapping does not measure', () => {
  it('an image family needs no clip: one frame, its position scheme, its CLS count', () => {
    const e = encoderHparams('dinov3', { ...MEASURED, nReg: 4 });
    expect(e).toMatchObject({ ...FAMILY_DEFINITIONS.dinov3.encoder, nReg: 4, tubeletSize: 1, nFrames: 1, nPatches: 196, headDim: 16 });
    expect(e.rope).toEqual({ layout: 'interleaved', theta: 100, interpolate: false, refGrid: null });
  });

  it('what the mapping gives wins over the default', () => {
    expect(encoderHparams('levjepa', { ...MEASURED, tubeletSize: 2, nFrames: 16 }).attnMode).toBe('block_causal');
    expect(encoderHparams('levjepa', { ...MEASURED, tubeletSize: 2, nFrames: 16, attnMode: 'full' }).attnMode).toBe('full');
  });

  it('a video family refuses a mapping that does not say its clip', () => {
    expect(() => encoderHparams('vjepa2', MEASURED)).toThrow(/vjepa2 is a video family/);
    expect(encoderHparams('vjepa2', { ...MEASURED, tubeletSize: 2, nFrames: 16 }).nPatches).toBe(8 * 196);
  });
});
