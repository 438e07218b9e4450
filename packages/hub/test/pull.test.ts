import { readFileSync, readlinkSync, readdirSync, existsSync, lstatSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { convertCheckpoint } from '@jepa/convert';
import { HubError, hubSettings, listCachedModels, parseHubReference, pullModel, QUANTIZER_VERSION, resolveModel } from '@jepa/hub';
import { quantizeFile } from '@jepa/quantize';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HFVIT, type HubFixture, startHub } from './hub-fixture.js';

let hub: HubFixture;
beforeEach(async () => {
  hub = await startHub();
});
afterEach(async () => {
  await hub.close();
});

const repoFolder = () => join(hub.settings.cacheDir, 'models--tiny--hfvit');

async function failure(run: () => Promise<unknown>): Promise<HubError> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(HubError);
    expect((err as Error).message).not.toContain('\n');
    return err as HubError;
  }
  throw new Error('expected a refusal');
}

/** The GGUF `jepa convert` writes from the same checkpoint folder. */
async function convertedLocally(folder: string): Promise<Buffer> {
  const out = join(mkdtempSync(join(tmpdir(), 'jepa-local-')), 'local.gguf');
  await convertCheckpoint(join(folder, 'model.safetensors'), out);
  return readFileSync(out);
}

describe('pulling hf:ORG/NAME through the loopback Hub', () => {
  it('lays out the Hugging Face cache, takes only what conversion needs and converts into jepa cache', async () => {
    const pulled = await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    const commit = hub.server.repos.get('tiny/hfvit')?.branches.get('main');
    expect(pulled.commit).toBe(commit);
    expect(readFileSync(join(repoFolder(), 'refs', 'main'), 'utf8')).toBe(commit);
    const snapshot = join(repoFolder(), 'snapshots', pulled.commit);
    expect(readdirSync(snapshot).sort(), 'the snapshot').toEqual(['config.json', 'model.safetensors', 'preprocessor_config.json']);
    const link = readlinkSync(join(snapshot, 'model.safetensors'));
    const sha = hub.server.repos.get('tiny/hfvit')?.commits.get(pulled.commit)?.get('model.safetensors')?.etag;
    expect(link).toBe(`../../blobs/${sha}`);
    expect(readFileSync(join(snapshot, 'model.safetensors'))).toEqual(readFileSync(join(HFVIT, 'model.safetensors')));
    // never the .bin beside safetensors, nor onnx, flax or tf
    for (const unwanted of ['pytorch_model.bin', 'onnx/model.onnx', 'flax_model.msgpack', 'tf_model.h5', 'README.md'])
      expect(hub.server.downloadsOf(unwanted)).toEqual([]);
    expect(pulled.gguf.startsWith(join(hub.settings.jepaCache, 'hub', 'models--tiny--hfvit', pulled.commit))).toBe(true);
    expect(readFileSync(pulled.gguf)).toEqual(await convertedLocally(HFVIT));
    // the tree came in pages of 3 behind Link headers
    expect(hub.server.requests.filter((r) => r.path.includes('/tree/')).length).toBeGreaterThan(1);

    // a second pull downloads and converts nothing
    const before = hub.server.requests.length;
    const again = await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    expect(again).toMatchObject({ gguf: pulled.gguf, converted: false });
    expect(hub.server.requests.slice(before).map((r) => r.path)).toEqual([`/api/models/tiny/hfvit/revision/main`]);
    // and a pinned commit touches no network at all
    expect(await resolveModel(`hf:tiny/hfvit@${pulled.commit}`, { settings: hub.settings })).toBe(pulled.gguf);
    expect(hub.server.requests.length).toBe(before + 1);
  });

  it('keys the converted file by type and revision', async () => {
    const f16 = await pullModel(parseHubReference('hf:tiny/hfvit:f16'), { settings: hub.settings });
    expect(f16.gguf.endsWith('/f16.gguf')).toBe(true);
    const newer = hub.server.seed(
      'tiny/hfvit',
      new Map([
        ['config.json', readFileSync(join(HFVIT, 'config.json'))],
        ['model.safetensors', readFileSync(join(HFVIT, 'model.safetensors'))],
      ]),
      {
        branch: 'dev',
        salt: 'dev',
      },
    );
    const dev = await pullModel(parseHubReference('hf:tiny/hfvit@dev'), { settings: hub.settings });
    expect(dev.commit).toBe(newer);
    expect(readFileSync(join(repoFolder(), 'refs', 'dev'), 'utf8')).toBe(newer);
    // the blobs are shared: the second revision downloaded no byte of the same files
    expect(hub.server.downloadsOf('model.safetensors').length).toBe(2);
  });

  it('a quantized type (hf:ORG/NAME:q8_0) is the f32 GGUF quantized as jepa-quantize does, keyed by the quantizer version too', async () => {
    const q8 = await pullModel(parseHubReference('hf:tiny/hfvit:q8_0'), { settings: hub.settings });
    expect(q8.converted).toBe(true);
    expect(q8.ref.type).toBe('q8_0');
    expect(q8.gguf.endsWith(`/q8_0.quantize-${QUANTIZER_VERSION}.gguf`)).toBe(true);
    // the f32 GGUF it was made from is kept, and serves hf:tiny/hfvit without a second conversion
    const f32 = await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    expect(f32.converted).toBe(false);
    const local = join(mkdtempSync(join(tmpdir(), 'jepa-local-q8-')), 'q8_0.gguf');
    await quantizeFile(f32.gguf, local, 'q8_0');
    expect(readFileSync(q8.gguf)).toEqual(readFileSync(local));
    // the negative control: the quantized file is not the f32 one
    expect(readFileSync(q8.gguf).equals(readFileSync(f32.gguf))).toBe(false);
    const again = await pullModel(parseHubReference('hf:tiny/hfvit:q8_0'), { settings: hub.settings });
    expect(again).toMatchObject({ gguf: q8.gguf, converted: false });
    const listed = (await listCachedModels(hub.settings)).find((m) => m.repo === 'tiny/hfvit');
    expect(listed?.converted.map((c) => c.type).sort()).toEqual(['f32', 'q8_0']);
  });

  it('resumes a cut download with Range from the .incomplete size', async () => {
    hub.server.fault('model.safetensors', 'cut');
    const notes: string[] = [];
    const pulled = await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings, onNote: (n) => notes.push(n) });
    const gets = hub.server.downloadsOf('model.safetensors').filter((r) => r.path.startsWith('/lfs/'));
    expect(gets.length).toBe(2);
    const size = readFileSync(join(HFVIT, 'model.safetensors')).length;
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(gets[1].range ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(size >> 1);
    expect(notes.some((n) => n.includes('trying again'))).toBe(true);
    expect(readFileSync(pulled.gguf)).toEqual(await convertedLocally(HFVIT));
  });

  it("follows a renamed repository's redirects (a 307 to the new name, then the 302 to the LFS object)", async () => {
    hub.server.renamed.set('tiny/hfvit-old', 'tiny/hfvit');
    const pulled = await pullModel(parseHubReference('hf:tiny/hfvit-old'), { settings: hub.settings });
    expect(readFileSync(pulled.gguf)).toEqual(await convertedLocally(HFVIT));
    const paths = hub.server.requests.map((r) => r.path);
    expect(paths).toContain(`/tiny/hfvit-old/resolve/${pulled.commit}/model.safetensors`);
    expect(paths).toContain(`/tiny/hfvit/resolve/${pulled.commit}/model.safetensors`);
    expect(paths.some((p) => p.startsWith('/lfs/') && p.endsWith('/model.safetensors'))).toBe(true);
  });

  it("names jepa's version and Node's in every request's User-Agent, the API's and the files' alike", async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    const agents = new Set(hub.server.requests.map((r) => r.userAgent));
    expect([...agents]).toEqual([`jepa/${version}; node/${process.versions.node}`]);
    expect(hub.server.downloadsOf('model.safetensors').length).toBeGreaterThan(0);
  });

  it("refuses a file the resolve links to another object than the listing's, and keeps nothing of it", async () => {
    hub.server.fault('model.safetensors', 'wrong-link');
    const err = await failure(() => pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings }));
    const etag = hub.server.repos.get('tiny/hfvit')?.commits.values().next().value?.get('model.safetensors')?.etag ?? '';
    expect(err.code).toBe('HUB_CHECKSUM');
    expect(err.message).toMatch(new RegExp(`^tiny/hfvit/model\\.safetensors: the Hub links it to [0-9a-f]{64}, its listing to ${etag}$`));
    expect(hub.server.requests.some((r) => r.path.startsWith('/lfs/'))).toBe(false);
  });

  it('resumes what a killed pull left in blobs/<etag>.incomplete', async () => {
    const bytes = readFileSync(join(HFVIT, 'model.safetensors'));
    const sha = hub.server.repos.get('tiny/hfvit')?.commits.values().next().value?.get('model.safetensors')?.etag ?? '';
    mkdirSync(join(repoFolder(), 'blobs'), { recursive: true });
    writeFileSync(join(repoFolder(), 'blobs', `${sha}.incomplete`), bytes.subarray(0, 1000));
    await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    expect(
      hub.server
        .downloadsOf('model.safetensors')
        .filter((r) => r.path.startsWith('/lfs/'))
        .map((r) => r.range),
    ).toEqual(['bytes=1000-']);
    expect(readFileSync(join(repoFolder(), 'blobs', sha))).toEqual(bytes);
    expect(existsSync(join(repoFolder(), 'blobs', `${sha}.incomplete`))).toBe(false);
  });

  it('starts the file and its digest over when the Hub answers a Range with the whole file', async () => {
    const bytes = readFileSync(join(HFVIT, 'model.safetensors'));
    const sha = hub.server.repos.get('tiny/hfvit')?.commits.values().next().value?.get('model.safetensors')?.etag ?? '';
    const lfsRanges = () =>
      hub.server
        .downloadsOf('model.safetensors')
        .filter((r) => r.path.startsWith('/lfs/'))
        .map((r) => r.range);
    // a prefix left by another pull that is not the file's: appended to, the blob would fail its sha256 and be downloaded again
    mkdirSync(join(repoFolder(), 'blobs'), { recursive: true });
    writeFileSync(join(repoFolder(), 'blobs', `${sha}.incomplete`), Buffer.alloc(1000, 7));
    hub.server.fault('model.safetensors', 'no-range');
    await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    expect(lfsRanges()).toEqual(['bytes=1000-']);
    expect(readFileSync(join(repoFolder(), 'blobs', sha))).toEqual(bytes);

    // cut, then the whole file again: what the digest took of the first try is dropped too
    hub.server.requests.length = 0;
    const settings = { ...hub.settings, cacheDir: join(hub.dir, 'again'), jepaCache: join(hub.dir, 'again-jepa') };
    hub.server.fault('model.safetensors', 'cut', 'no-range');
    await pullModel(parseHubReference('hf:tiny/hfvit'), { settings });
    const [first, second, ...more] = lfsRanges();
    expect([first, more]).toEqual([undefined, []]);
    expect(second).toMatch(/^bytes=[1-9]\d*-$/);
    expect(readFileSync(join(settings.cacheDir, 'models--tiny--hfvit', 'blobs', sha))).toEqual(bytes);
  });

  it('retries a 503 with backoff, and refuses in one line when it persists', async () => {
    // the API calls through @huggingface/hub are retried too
    hub.server.apiFailures = 3;
    const notes: string[] = [];
    await pullModel(parseHubReference('hf:tiny/hfvit'), {
      settings: { ...hub.settings, cacheDir: join(hub.dir, 'api'), jepaCache: join(hub.dir, 'api-jepa') },
      onNote: (n) => notes.push(n),
    });
    expect(hub.server.apiFailures).toBe(0);
    expect(notes.filter((n) => n.includes('HTTP 503'))).toHaveLength(3);
    const lfsGets = () => hub.server.downloadsOf('model.safetensors').filter((r) => r.path.startsWith('/lfs/')).length;
    const before = lfsGets();
    hub.server.fault('model.safetensors', '503', '503');
    await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    expect(lfsGets() - before).toBe(3);

    hub.server.fault('config.json', '503', '503', '503', '503', '503');
    const err = await failure(() =>
      pullModel(parseHubReference('hf:tiny/hfvit:bf16'), { settings: { ...hub.settings, cacheDir: join(hub.dir, 'other') } }),
    );
    expect(err.code).toBe('HUB_SERVER');
    expect(err.message).toMatch(/answered 503 for hf:tiny\/hfvit after 4 tries/);
  });

  it('checks the sha256 of an LFS blob: a wrong one is downloaded again, twice wrong is refused and not kept', async () => {
    hub.server.fault('model.safetensors', 'corrupt');
    const pulled = await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    expect(readFileSync(pulled.gguf)).toEqual(await convertedLocally(HFVIT));

    const settings = { ...hub.settings, cacheDir: join(hub.dir, 'second'), jepaCache: join(hub.dir, 'second-jepa') };
    hub.server.fault('model.safetensors', 'corrupt', 'corrupt');
    const err = await failure(() => pullModel(parseHubReference('hf:tiny/hfvit'), { settings }));
    expect(err.code).toBe('HUB_CHECKSUM');
    expect(err.message).toMatch(
      /tiny\/hfvit\/model\.safetensors: the bytes downloaded twice hash to [0-9a-f]{64}, not [0-9a-f]{64}; the blob is not kept/,
    );
    expect(
      readdirSync(join(settings.cacheDir, 'models--tiny--hfvit', 'blobs')).filter((n) => n.length === 64 || n.endsWith('.incomplete')),
    ).not.toContainEqual(expect.stringMatching(/^[0-9a-f]{64}/));
  });

  it('refuses a gated repo without a token, with a token not allowed, and a token the Hub does not know, naming HF_TOKEN and the page', async () => {
    const noToken = await failure(() => pullModel(parseHubReference('hf:tiny/dinov3-gated'), { settings: hub.settings }));
    expect(noToken.code).toBe('HUB_GATED');
    expect(noToken.message).toBe(
      `hf:tiny/dinov3-gated is gated: accept its terms at ${hub.server.url}/tiny/dinov3-gated, then set HF_TOKEN (or run huggingface-cli login)`,
    );
    const wrong = await failure(() => pullModel(parseHubReference('hf:tiny/dinov3-gated'), { settings: { ...hub.settings, token: 'hf_noaccess' } }));
    expect(wrong.code).toBe('HUB_FORBIDDEN');
    expect(wrong.message).toBe(
      `HF_TOKEN has no access to hf:tiny/dinov3-gated: ask for it at ${hub.server.url}/tiny/dinov3-gated (or use a token of an account that has it)`,
    );
    const invalid = await failure(() => pullModel(parseHubReference('hf:tiny/hfvit'), { settings: { ...hub.settings, token: 'hf_invalid' } }));
    expect(invalid.code).toBe('HUB_BAD_TOKEN');
    expect(invalid.message).toBe(
      `HF_TOKEN was refused by ${hub.server.url} (invalid or expired): make a new one at ${hub.server.url}/settings/tokens`,
    );
    const notAToken = await failure(() => pullModel(parseHubReference('hf:tiny/dinov3-gated'), { settings: { ...hub.settings, token: 'abc' } }));
    expect(notAToken.message).toBe('HF_TOKEN is not a Hugging Face token (they start with hf_)');

    // the token `huggingface-cli login` saved in $HF_HOME/token opens it
    const hfHome = join(hub.dir, 'hf-home');
    mkdirSync(hfHome);
    writeFileSync(join(hfHome, 'token'), 'hf_allowed\n');
    const settings = { ...hubSettings({ HF_HOME: hfHome }), endpoint: hub.settings.endpoint, jepaCache: hub.settings.jepaCache, retryDelayMs: 5 };
    const pulled = await pullModel(parseHubReference('hf:tiny/dinov3-gated'), { settings });
    expect(existsSync(pulled.gguf)).toBe(true);
    expect(hub.server.requests.some((r) => r.path.includes('/resolve/') && r.authorization === 'Bearer hf_allowed')).toBe(true);
  });

  it('refuses a repository or revision that does not exist', async () => {
    const repo = await failure(() => pullModel(parseHubReference('hf:tiny/nothing'), { settings: hub.settings }));
    expect(repo.code).toBe('HUB_REPO_NOT_FOUND');
    expect(repo.message).toBe(`hf:tiny/nothing: no such model repository at ${hub.server.url} (a private one needs HF_TOKEN)`);
    const revision = await failure(() => pullModel(parseHubReference('hf:tiny/hfvit@v9'), { settings: hub.settings }));
    expect(revision.code).toBe('HUB_REVISION_NOT_FOUND');
    expect(revision.message).toBe(`hf:tiny/hfvit has no revision 'v9' (a branch, tag or commit of ${hub.server.url}/tiny/hfvit)`);
  });

  it('two pulls of the same repo at once download each blob once and agree', async () => {
    hub.server.fault('model.safetensors', 'slow');
    const [a, b] = await Promise.all([
      pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings }),
      pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings }),
    ]);
    expect(a.gguf).toBe(b.gguf);
    expect(hub.server.downloadsOf('model.safetensors').filter((r) => r.path.startsWith('/lfs/')).length).toBe(1);
    expect(readFileSync(a.gguf)).toEqual(await convertedLocally(HFVIT));
    expect(readdirSync(join(hub.settings.cacheDir, '.locks', 'models--tiny--hfvit'))).toEqual([]);
  });

  it('offline (HF_HUB_OFFLINE=1) with the server stopped gives the same bits; without the model it fails in one line', async () => {
    const online = await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    const bits = readFileSync(online.gguf);
    await hub.server.stop();
    // a refused connection is not waited on: with 10 s before a retry this would take 150 s
    const t0 = performance.now();
    const down = await failure(() =>
      pullModel(parseHubReference('hf:tiny/hfvit'), { settings: { ...hub.settings, attempts: 5, retryDelayMs: 10_000 } }),
    );
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(down.code).toBe('HUB_UNREACHABLE');
    expect(down.message).toMatch(
      /^cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); the cache has hf:tiny\/hfvit@main: set HF_HUB_OFFLINE=1 to use it$/,
    );

    const offline = { ...hub.settings, offline: true };
    expect(await resolveModel('hf:tiny/hfvit', { settings: offline })).toBe(online.gguf);
    // converted again from the cache alone, into another jepa cache: the same bits
    const elsewhere = await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: { ...offline, jepaCache: join(hub.dir, 'jepa-2') } });
    expect(elsewhere.converted).toBe(true);
    expect(readFileSync(elsewhere.gguf)).toEqual(bits);
    expect(lstatSync(join(repoFolder(), 'snapshots', online.commit, 'config.json')).isSymbolicLink()).toBe(true);

    const missing = await failure(() => resolveModel('hf:tiny/dinov3-gated', { settings: offline }));
    expect(missing.code).toBe('HUB_OFFLINE_MISSING');
    expect(missing.message).toBe(`HF_HUB_OFFLINE=1 and the cache (${hub.settings.cacheDir}) does not hold hf:tiny/dinov3-gated: pull it once online`);
  });
});
