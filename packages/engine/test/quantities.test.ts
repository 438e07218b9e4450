// Durations and sizes as the flags and request fields write them, a call's deadline that may only
// shorten the engine's, and a keep-alive that names no model.
import { DEMO_MODEL, seededPng } from '@jepa/testing';
import { describe, expect, it } from 'vitest';
import { Engine, type EngineError, formatDuration, formatSize, parseDuration, parseSize } from '../src/index.js';

describe('parseDuration', () => {
  it('reads units, bare seconds, zero and forever', () => {
    expect(parseDuration('250ms', 'd')).toBe(250);
    expect(parseDuration('30s', 'd')).toBe(30_000);
    expect(parseDuration('1.5s', 'd')).toBe(1500);
    expect(parseDuration('5m', 'd')).toBe(300_000);
    expect(parseDuration('2h', 'd')).toBe(7_200_000);
    expect(parseDuration('10', 'd')).toBe(10_000);
    expect(parseDuration(2.5, 'd')).toBe(2500);
    expect(parseDuration('0', 'd')).toBe(0);
    for (const never of ['-1', 'forever', 'inf', -1]) expect(parseDuration(never, 'd')).toBe(Number.POSITIVE_INFINITY);
  });

  it('refuses what is not a duration, naming the flag', () => {
    for (const bad of ['soon', '5 minutes', '-5s', '', '1d'])
      expect(() => parseDuration(bad, '--keep-alive')).toThrow(/^--keep-alive: expected a duration/);
    expect(() => parseDuration(-3, 'keep_alive')).toThrow(/^keep_alive: expected seconds/);
    expect(() => parseDuration(Number.NaN, 'keep_alive')).toThrow(/^keep_alive:/);
  });

  it('formats back', () => {
    expect([300_000, 3_600_000, 30_000, 250, 0, Number.POSITIVE_INFINITY].map(formatDuration)).toEqual(['5m', '1h', '30s', '250ms', '0s', 'forever']);
  });
});

describe('parseSize', () => {
  it('reads decimal and binary units and bare bytes', () => {
    expect(parseSize('2GB', 's')).toBe(2e9);
    expect(parseSize('1.5GiB', 's')).toBe(1.5 * 2 ** 30);
    expect(parseSize('512MiB', 's')).toBe(512 * 2 ** 20);
    expect(parseSize('512M', 's')).toBe(512 * 2 ** 20);
    expect(parseSize('300mb', 's')).toBe(3e8);
    expect(parseSize('4096', 's')).toBe(4096);
    expect(formatSize(2.5e9)).toBe('2.50 GB');
    expect(formatSize(92e6)).toBe('92.0 MB');
  });

  it('refuses a size it cannot read, or zero', () => {
    for (const bad of ['lots', '2 parsecs', '-1GB', ''])
      expect(() => parseSize(bad, '--max-model-memory')).toThrow(/^--max-model-memory: expected a size/);
    expect(() => parseSize('0', '--max-model-memory')).toThrow(/more than 0 bytes/);
  });
});

describe('the engine', () => {
  it("a call's timeoutMs shortens the engine's deadline but cannot lengthen it", async () => {
    const engine = await Engine.create({ models: [DEMO_MODEL], threads: 2, timeoutMs: 1 });
    try {
      await engine.ready;
      const item = { field: 'input.image', kind: 'image' as const, bytes: seededPng(32, 32, 1) };
      const err = await engine.embed({ items: [item] }, { timeoutMs: 600_000 }).then(
        () => null,
        (e: EngineError) => e,
      );
      expect(err?.kind).toBe('timeout');
    } finally {
      await engine.close();
    }
  });

  it('refuses a keep-alive for a model it does not serve', async () => {
    await expect(Engine.create({ models: [DEMO_MODEL], keepAliveById: new Map([['nope', 1000]]) })).rejects.toThrow(
      "keep-alive for 'nope': no model is called that",
    );
  });
});
