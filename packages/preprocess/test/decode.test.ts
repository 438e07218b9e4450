import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeImage, orientRgb, readImageFile, readNpy } from '../src/index.js';
import { fixturePath, readFixture, readJsonFixture } from './fixtures.js';

const index = readJsonFixture<Record<string, { pilMode: string; rgb?: string }>>('decode', 'index.json');

describe('decodeImage', () => {
  for (const [name, entry] of Object.entries(index)) {
    if (!entry.rgb) continue;
    it(`decodes ${name} (Pillow mode ${entry.pilMode}) exactly as Pillow convert('RGB')`, () => {
      const img = decodeImage(readFileSync(fixturePath('decode', name)));
      expect(Buffer.from(img.data).toString('hex')).toBe(entry.rgb);
      expect([img.width, img.height]).toEqual([13, 7]);
    });
  }

  // jpeg-js's IDCT is not libjpeg's, so JPEG pixels keep a small decoder floor against Pillow.
  // Chroma upsampling and colour conversion are libjpeg's own (src/image/jpeg-color.ts); with
  // jpeg-js's replication instead, 4:2:0 files were off by up to 93 levels (mean 3.2).
  // Measured with libjpeg's finishing: max |diff| 3 everywhere, mean 0.07-0.15 (0.36 on a 5x3 image).
  const floors: Record<string, { meanAbs: number; maxAbs: number }> = {
    'baseline444.jpg': { meanAbs: 0.2, maxAbs: 3 },
    'exif_orientation6.jpg': { meanAbs: 0.2, maxAbs: 3 },
    'baseline420.jpg': { meanAbs: 0.2, maxAbs: 3 },
    'baseline422.jpg': { meanAbs: 0.2, maxAbs: 3 },
    'progressive.jpg': { meanAbs: 0.2, maxAbs: 3 },
    'odd97x63_420.jpg': { meanAbs: 0.2, maxAbs: 3 },
    'odd63x97_422.jpg': { meanAbs: 0.2, maxAbs: 3 },
    'tiny3x2_420.jpg': { meanAbs: 0.2, maxAbs: 3 },
    'tiny5x3_420.jpg': { meanAbs: 0.4, maxAbs: 3 },
    'gray.jpg': { meanAbs: 0.1, maxAbs: 1 },
    'cmyk.jpg': { meanAbs: 0.1, maxAbs: 1 },
    'sample.jpg': { meanAbs: 0.2, maxAbs: 3 },
  };
  it('has a floor entry for every JPEG fixture', () => {
    expect(
      Object.keys(index)
        .filter((n) => n.endsWith('.jpg'))
        .sort(),
    ).toEqual(
      Object.keys(floors)
        .filter((n) => n !== 'sample.jpg')
        .sort(),
    );
  });
  for (const [name, floor] of Object.entries(floors)) {
    it(`decodes ${name} within the jpeg-js decoder floor of Pillow`, () => {
      const path = name === 'sample.jpg' ? fixturePath('sample.jpg') : fixturePath('decode', name);
      // These goldens are Pillow's plain convert('RGB'), the raster as stored: orientation off.
      const img = readImageFile(path, { exifOrient: false });
      const pil = readNpy(readFixture('decode', `${name}.pil.npy.gz`));
      expect(pil.shape).toEqual([img.height, img.width, 3]);
      const ref = pil.data as Uint8Array;
      let sumAbs = 0;
      let maxAbs = 0;
      for (let i = 0; i < ref.length; i++) {
        const d = Math.abs(ref[i] - img.data[i]);
        sumAbs += d;
        maxAbs = Math.max(maxAbs, d);
      }
      expect(sumAbs / ref.length).toBeLessThan(floor.meanAbs);
      expect(maxAbs).toBeLessThanOrEqual(floor.maxAbs);
    });
  }

  it('applies the EXIF orientation by default: exif_orientation6.jpg comes out rotated 90 degrees clockwise', () => {
    const path = fixturePath('decode', 'exif_orientation6.jpg');
    const stored = readImageFile(path, { exifOrient: false });
    const upright = readImageFile(path);
    expect([stored.width, stored.height]).toEqual([96, 64]);
    expect([upright.width, upright.height]).toEqual([64, 96]);
    expect(upright).toEqual(orientRgb(stored, 6));
  });
});
