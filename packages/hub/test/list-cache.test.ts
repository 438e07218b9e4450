import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CONVERTER_VERSION, HubError, listCachedModels, parseHubReference, pullModel, removeCached } from '@jepa/hub';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HubFixture, startHub } from './hub-fixture.js';

let hub: HubFixture;
beforeEach(async () => {
  hub = await startHub();
});
afterEach(async () => {
  await hub.close();
});

describe('what the caches hold', () => {
  it('lists repositories, revisions, files, sizes and converted GGUFs; rm takes a revision or a repository out', async () => {
    expect(await listCachedModels(hub.settings)).toEqual([]);
    const main = await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    const f16 = await pullModel(parseHubReference('hf:tiny/hfvit:f16'), { settings: hub.settings });
    const files = hub.server.repos.get('tiny/hfvit')?.commits.get(main.commit);
    const size = (name: string) => files?.get(name)?.bytes.length ?? -1;
    const listed = await listCachedModels(hub.settings);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      repo: 'tiny/hfvit',
      folder: join(hub.settings.cacheDir, 'models--tiny--hfvit'),
      revisions: [
        {
          commit: main.commit,
          refs: ['main'],
          files: [
            { path: 'config.json', size: size('config.json') },
            { path: 'model.safetensors', size: size('model.safetensors') },
            { path: 'preprocessor_config.json', size: size('preprocessor_config.json') },
          ],
        },
      ],
      converted: [
        { commit: main.commit, converter: CONVERTER_VERSION, type: 'f16', path: f16.gguf },
        { commit: main.commit, converter: CONVERTER_VERSION, type: 'f32', path: main.gguf },
      ],
    });
    expect(listed[0].size).toBe(size('config.json') + size('model.safetensors') + size('preprocessor_config.json'));

    const removed = await removeCached('hf:tiny/hfvit@main', hub.settings);
    expect(removed).toContain(join(hub.settings.cacheDir, 'models--tiny--hfvit', 'snapshots', main.commit));
    expect(existsSync(main.gguf)).toBe(false);
    expect((await listCachedModels(hub.settings))[0]?.revisions ?? []).toEqual([]);

    await removeCached('hf:tiny/hfvit', hub.settings);
    expect(await listCachedModels(hub.settings)).toEqual([]);
    await expect(removeCached('hf:tiny/hfvit', hub.settings)).rejects.toThrow(HubError);
    await expect(removeCached('hf:tiny/hfvit', hub.settings)).rejects.toThrow(/^hf:tiny\/hfvit: not in the caches/);
  });
});
