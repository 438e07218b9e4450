// Clips batch like stills: B clips of one shape in one graph give each clip's tokens bit for bit as
// encoding it alone (the video families, the block-causal one included).
import { forgeModel, type Family } from '@jepa/gguf';
import { describe, expect, it } from 'vitest';
import { Model } from '../src/index.js';

describe('clips in one graph', () => {
  for (const family of ['vjepa', 'vjepa2', 'vjepa2_1', 'levjepa'] as Family[]) {
    it(`${family}: 3 clips batched equal each alone`, async () => {
      const model = await Model.load(forgeModel(family).path, { threads: 2 });
      const ctx = model.createContext();
      const e = model.spec.enc;
      const shape = [3, e.nFrames, e.imgSize, e.imgSize];
      const item = shape.reduce((a, b) => a * b, 1);
      const B = 3;
      const data = Float32Array.from({ length: B * item }, (_, i) => Math.sin(i * 0.013));
      const all = await ctx.encode({ data, shape: [B, ...shape] });
      for (let b = 0; b < B; b++) {
        const one = await ctx.encode({ data: data.subarray(b * item, (b + 1) * item), shape: [1, ...shape] });
        expect(Array.from(all.item(b))).toEqual(Array.from(one.item(0)));
      }
      // and a different clip gives different tokens: the comparison can fail
      expect(Array.from(all.item(1))).not.toEqual(Array.from(all.item(0)));
      ctx.dispose();
      model.dispose();
    });
  }
});
