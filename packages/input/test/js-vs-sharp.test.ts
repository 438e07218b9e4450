import { decodeImage as decodeJs, PreprocessError } from '@jepa/preprocess';
import { describe, expect, it } from 'vitest';
import { decodeImage } from '../src/decode/index.js';
import { compareRgb, fixture, index } from './decode-fixtures.js';

// The sharp path is byte-identical to Pillow on all of these (decode.test.ts), so each bound here is
// also the pure-JS path's distance from Pillow.
interface Bound {
  maxAbs: number;
  meanAbs: number;
}
const IDCT: Bound = { maxAbs: 3, meanAbs: 0.2 };

/** Measured: jpeg-js's IDCT against libjpeg's ISLOW, max 3 levels, mean 0.14-0.19 on colour files. */
const JPEG_BOUNDS: Record<string, Bound | 'js refuses'> = {
  'baseline420.jpg': IDCT,
  'progressive420.jpg': IDCT,
  'baseline422.jpg': IDCT,
  'progressive422.jpg': IDCT,
  'baseline444.jpg': IDCT,
  'progressive444.jpg': IDCT,
  'odd97x63_420.jpg': IDCT,
  'odd63x97_422.jpg': IDCT,
  'odd1x1_420.jpg': IDCT,
  'odd3x2_420.jpg': IDCT,
  'odd1x1_444.jpg': IDCT,
  'odd17x9_420.jpg': IDCT,
  'restart_rows_420.jpg': IDCT,
  'restart_blocks_444.jpg': IDCT,
  'custom_420.jpg': IDCT,
  'extraneous_bytes.jpg': IDCT,
  'gray.jpg': { maxAbs: 1, meanAbs: 0.1 },
  // Measured max 2, mean 0.44: jpeg-js's IDCT plus its float CMYK-to-RGB, not Pillow's integer one.
  'cmyk_adobe.jpg': { maxAbs: 2, meanAbs: 0.5 },
  // Measured max 46, mean 3.21: jpeg-js converts YCCK with its own float transform, not libjpeg's.
  'ycck.jpg': { maxAbs: 46, meanAbs: 3.3 },
  // Measured max 6, mean 0.15: both decoders resynchronise after the damaged block, not identically.
  'bitflip.jpg': { maxAbs: 6, meanAbs: 0.2 },
  // jpeg-js reads only Adobe 4-component files, and stops at a scan shorter than its frame.
  'cmyk_plain.jpg': 'js refuses',
  'short_scan.jpg': 'js refuses',
  ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`orient${i + 1}.jpg`, IDCT])),
};

const decodable = Object.entries(index).filter(([name, e]) => e.golden !== undefined && /\.(jpg|png)$/.test(name));

describe('pure-JS decode (@jepa/preprocess) against the sharp path', () => {
  it('has a bound for every JPEG fixture', () => {
    expect(
      decodable
        .filter(([n]) => n.endsWith('.jpg'))
        .map(([n]) => n)
        .sort(),
    ).toEqual(Object.keys(JPEG_BOUNDS).sort());
  });

  for (const [name, entry] of decodable) {
    for (const exifOrient of entry.stored ? [true, false] : [true]) {
      const bound = name.endsWith('.png') ? 'identical' : JPEG_BOUNDS[name];
      const label = `${name}${entry.stored ? ` (exifOrient ${exifOrient})` : ''}: ${typeof bound === 'string' ? bound : `max ${bound.maxAbs}, mean < ${bound.meanAbs}`}`;
      it(label, async () => {
        const bytes = fixture(name);
        const sharpImg = await decodeImage(bytes, { exifOrient });
        if (bound === 'js refuses') {
          expect(() => decodeJs(bytes, { exifOrient })).toThrow(PreprocessError);
          return;
        }
        const diff = compareRgb(decodeJs(bytes, { exifOrient }), sharpImg);
        expect(diff.sameShape).toBe(true);
        if (bound === 'identical') {
          expect(diff.differing).toBe(0);
        } else {
          expect(diff.maxAbs).toBeLessThanOrEqual(bound.maxAbs);
          expect(diff.meanAbs).toBeLessThan(bound.meanAbs);
        }
      });
    }
  }

  it('both paths refuse the broken JPEG/PNG fixtures with the same code', async () => {
    for (const name of ['truncated.jpg', 'truncated.png', 'corrupt.png', 'empty.jpg']) {
      const bytes = fixture(name);
      let jsCode: string | undefined;
      try {
        decodeJs(bytes);
      } catch (err) {
        jsCode = (err as PreprocessError).code;
      }
      const sharpCode = await decodeImage(bytes).then(
        () => undefined,
        (err: PreprocessError) => err.code,
      );
      expect({ name, code: jsCode }).toEqual({ name, code: sharpCode });
      expect(sharpCode).toBeDefined();
    }
  });
});
