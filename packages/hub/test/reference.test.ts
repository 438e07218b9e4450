import { describe, expect, it } from 'vitest';
import { formatReference, HubError, hubSettings, parseHubReference, referenceOf } from '@jepa/hub';

describe('hf: references', () => {
  it('reads ORG/NAME with an optional revision and type', () => {
    expect(parseHubReference('hf:facebook/dinov2-small')).toEqual({ repo: 'facebook/dinov2-small', revision: 'main', type: 'f32' });
    expect(parseHubReference('hf:facebook/dinov2-small@v1.0:f16')).toEqual({ repo: 'facebook/dinov2-small', revision: 'v1.0', type: 'f16' });
    expect(parseHubReference('hf:org/name@refs/pr/1')).toEqual({ repo: 'org/name', revision: 'refs/pr/1', type: 'f32' });
    expect(formatReference(parseHubReference('hf:org/name@dev:bf16'))).toBe('hf:org/name@dev:bf16');
    expect(referenceOf('org/name', 'v2', 'f16')).toEqual({ repo: 'org/name', revision: 'v2', type: 'f16' });
  });

  it.each([
    ['hf:dinov2-small', /expected ORG\/NAME/],
    ['hf:a/b/c', /expected ORG\/NAME/],
    ['hf:org/na me', /expected ORG\/NAME/],
    ['hf:org/--x', /expected ORG\/NAME/],
    ['hf:org/name@', /'' is not a branch, tag or commit/],
    ['hf:org/name@a..b', /is not a branch/],
    ['hf:org/name:q3_weird', /type 'q3_weird' is not one of f32, f16, bf16, q8_0, q8_row, /],
  ])('refuses %s in one line', (model, message) => {
    let err: unknown;
    try {
      parseHubReference(model);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HubError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain(model);
    expect((err as Error).message).not.toContain('\n');
  });

  it('reads the environment as huggingface_hub does', () => {
    const s = hubSettings({ HOME: '/h', HF_HOME: '/hf', HF_ENDPOINT: 'http://mirror.test/', HF_HUB_OFFLINE: '1', XDG_CACHE_HOME: '/x' });
    expect(s).toMatchObject({ endpoint: 'http://mirror.test', cacheDir: '/hf/hub', offline: true, jepaCache: '/x/jepa' });
    expect(hubSettings({ XDG_CACHE_HOME: '/x', HF_HUB_CACHE: '/c', JEPA_CACHE: '/j', HF_HUB_OFFLINE: '0', HF_TOKEN: 'hf_t' })).toMatchObject({
      cacheDir: '/c',
      jepaCache: '/j',
      offline: false,
      token: 'hf_t',
      endpoint: 'https://huggingface.co',
    });
    expect(hubSettings({ XDG_CACHE_HOME: '/x' }).cacheDir).toBe('/x/huggingface/hub');
  });
});
