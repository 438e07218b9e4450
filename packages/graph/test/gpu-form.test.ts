// JEPA_CPU_NODES=0 builds the graphs on the CPU as they are built for a GPU: ggml's generic ops
// only, none of this engine's CPU nodes (custom ops, named PANEL_MUL_MAT ... and ..._CPU), which a
// GPU backend cannot run. The golden suites pass in this form too (the vitest project "graphs as on
// a GPU"); this checks that the form is what it says, against the CPU form as the control.
import { FAMILIES, forgeHparams, forgeModel, type Family } from '@jepa/gguf';
import { afterEach, describe, expect, it } from 'vitest';
import { Model } from '../src/index.js';

/** The forged model's trained frames: 1 for an image family, its clip length for a video one. */
const framesOf = (family: Family) => forgeHparams(family).enc.nFrames;
const CPU_ONLY = /^PANEL_MUL_MAT|_CPU$/;

async function encoderOps(family: Family): Promise<Set<string>> {
  const model = await Model.load(forgeModel(family).path, { threads: 1 });
  const frames = framesOf(family);
  // images of 36 tokens (this engine's CPU flash kernel takes 16 up); clips at the forged grid
  const shape = frames === 1 ? [1, 3, 24, 24] : [1, 3, frames, 8, 8];
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1)).map((_, i) => Math.sin(i));
  const { nodes } = await model.createContext().profile({ data, shape });
  model.dispose();
  return new Set(nodes.map((n) => n.op));
}

afterEach(() => {
  delete process.env.JEPA_CPU_NODES;
});

describe('graphs as on a GPU (JEPA_CPU_NODES=0)', () => {
  for (const family of FAMILIES)
    it(`${family}: the encoder has no CPU-only node, where the CPU form has some`, async () => {
      const cpuForm = [...(await encoderOps(family))].filter((op) => CPU_ONLY.test(op));
      expect(cpuForm.length).toBeGreaterThan(0);
      process.env.JEPA_CPU_NODES = '0';
      const gpuForm = await encoderOps(family);
      expect([...gpuForm].filter((op) => CPU_ONLY.test(op))).toEqual([]);
      expect(gpuForm.has('MUL_MAT')).toBe(true);
    });
});
