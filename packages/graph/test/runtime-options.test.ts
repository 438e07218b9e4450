// The run-time switches: parsed from an environment once, refused in one line when malformed, and kept by
// the model loaded under them whatever the environment does afterwards.
import { forgeModel } from '@jepa/gguf';
import { afterEach, describe, expect, it } from 'vitest';
import { Model, runtimeFromEnv } from '../src/index.js';

afterEach(() => {
  delete process.env.JEPA_KV_F16;
  delete process.env.JEPA_MAX_BATCH;
});

describe('runtime options', () => {
  it('reads the defaults from an empty environment, and each switch from its variable', () => {
    expect(runtimeFromEnv({})).toEqual({
      maxBatch: 32,
      maxGraphBytes: 8192 * 2 ** 20,
      validateGraphs: true,
      sharedCompute: true,
      kv: undefined,
      gpuPrecF32: true,
      panel: { enabled: true, kernel: undefined },
      repack: true,
      flashCpu: true,
      cpuNodes: true,
    });
    expect(
      runtimeFromEnv({
        JEPA_MAX_BATCH: '4',
        JEPA_MAX_GRAPH_MIB: '16',
        JEPA_VALIDATE_GRAPH: '0',
        JEPA_SHARED_COMPUTE: '0',
        JEPA_KV_F32: '1',
        JEPA_GPU_PREC: 'f16',
        JEPA_PANEL: 'avx2',
        JEPA_REPACK: '0',
        JEPA_FLASH_CPU: '0',
        JEPA_CPU_NODES: '0',
      }),
    ).toEqual({
      maxBatch: 4,
      maxGraphBytes: 16 * 2 ** 20,
      validateGraphs: false,
      sharedCompute: false,
      kv: 'f32',
      gpuPrecF32: false,
      panel: { enabled: true, kernel: 'avx2' },
      repack: false,
      flashCpu: false,
      cpuNodes: false,
    });
    expect(runtimeFromEnv({ JEPA_PANEL: '0' }).panel).toEqual({ enabled: false, kernel: undefined });
  });

  it('refuses a malformed switch in one line naming it', () => {
    expect(() => runtimeFromEnv({ JEPA_MAX_BATCH: '0' })).toThrow(/^JEPA_MAX_BATCH=0 is not a positive integer$/);
    expect(() => runtimeFromEnv({ JEPA_MAX_GRAPH_MIB: 'lots' })).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
    expect(() => runtimeFromEnv({ JEPA_KV_F16: '1', JEPA_KV_F32: '1' })).toThrow(/both set/);
  });

  it('a model keeps the switches it was loaded under: the environment is read at load, not per call', async () => {
    const path = forgeModel('hfvit').path;
    const model = await Model.load(path, { threads: 1 });
    expect(model.runtime.kv).toBeUndefined();
    process.env.JEPA_KV_F16 = '1';
    expect(model.createContext().kvType).toBe(0);
    const later = await Model.load(path, { threads: 1 });
    expect(later.runtime.kv).toBe('f16');
    expect(later.createContext().kvType).toBe(1);
    const given = await Model.load(path, { threads: 1, runtime: runtimeFromEnv({}) });
    expect(given.createContext().kvType).toBe(0);
    for (const m of [model, later, given]) await m.dispose();
  });
});
