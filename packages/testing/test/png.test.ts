// The one PNG writer: what it writes decodes to the pixels it was given.
import { decodeImage } from '@jepa/preprocess';
import { describe, expect, it } from 'vitest';
import { pngOf, rgbPng, seededPng } from '../src/png.js';

describe('rgbPng', () => {
  it('round-trips the pixels through the PNG decoder', () => {
    const rgb = Uint8Array.from({ length: 5 * 3 * 3 }, (_, i) => (i * 37 + 11) & 255);
    const image = decodeImage(rgbPng(5, 3, rgb));
    expect([image.width, image.height]).toEqual([5, 3]);
    expect(Buffer.from(image.data).equals(Buffer.from(rgb))).toBe(true);
  });

  it('refuses a pixel buffer of the wrong size', () => {
    expect(() => rgbPng(4, 4, new Uint8Array(4 * 4 * 3 - 1))).toThrow(/47 bytes for 4x4 RGB \(want 48\)/);
  });

  it('pngOf gives byte i of row y, mod 256', () => {
    const image = decodeImage(pngOf(2, 2, (i, y) => 250 + i + y));
    expect(Array.from(image.data)).toEqual([250, 251, 252, 253, 254, 255, 251, 252, 253, 254, 255, 0]);
  });

  it('seededPng differs by seed and not between calls', () => {
    expect(seededPng(8, 6, 1).equals(seededPng(8, 6, 1))).toBe(true);
    expect(seededPng(8, 6, 1).equals(seededPng(8, 6, 2))).toBe(false);
  });
});
