// The other checkpoint layouts a repository may hold: safetensors shards with their index, and a
// Meta repository's single .pth. Each is pulled without its neighbours and converted as jepa convert
// converts the same files.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertCheckpoint } from '@jepa/convert';
import { parseHubReference, pullModel } from '@jepa/hub';
import { REFERENCE } from '@jepa/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HFVIT, type HubFixture, startHub } from './hub-fixture.js';

let hub: HubFixture;
beforeEach(async () => {
  hub = await startHub();
});
afterEach(async () => {
  await hub.close();
});

interface Entry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/** One safetensors file as two shards (tensors taken in turn) and the index transformers writes. */
function shard(bytes: Buffer): Map<string, Buffer> {
  const length = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + length).toString('utf8')) as Record<string, Entry | Record<string, string>>;
  const data = bytes.subarray(8 + length);
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  const files = new Map<string, Buffer>();
  const weightMap: Record<string, string> = {};
  for (const [i, file] of ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'].entries()) {
    const mine = names.filter((_, n) => n % 2 === i);
    const out: Record<string, Entry> = {};
    const parts: Buffer[] = [];
    let at = 0;
    for (const name of mine) {
      const e = header[name] as Entry;
      const part = data.subarray(e.data_offsets[0], e.data_offsets[1]);
      out[name] = { dtype: e.dtype, shape: e.shape, data_offsets: [at, at + part.length] };
      parts.push(part);
      at += part.length;
      weightMap[name] = file;
    }
    let json = Buffer.from(JSON.stringify(out));
    json = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(json.length));
    files.set(file, Buffer.concat([len, json, ...parts]));
  }
  files.set('model.safetensors.index.json', Buffer.from(JSON.stringify({ metadata: { total_size: data.length }, weight_map: weightMap }, null, 2)));
  return files;
}

async function converted(src: string): Promise<Buffer> {
  const out = join(mkdtempSync(join(tmpdir(), 'jepa-local-')), 'local.gguf');
  await convertCheckpoint(src, out);
  return readFileSync(out);
}

describe('checkpoint layouts', () => {
  it('pulls safetensors shards and their index, not a variant beside them', async () => {
    const shards = shard(readFileSync(join(HFVIT, 'model.safetensors')));
    const files = new Map([
      ...shards,
      ['config.json', readFileSync(join(HFVIT, 'config.json'))],
      ['preprocessor_config.json', readFileSync(join(HFVIT, 'preprocessor_config.json'))],
    ]);
    files.set('model.fp16.safetensors', Buffer.from('a variant a pull must leave alone'));
    const commit = hub.server.seed('tiny/sharded', files);
    const pulled = await pullModel(parseHubReference('hf:tiny/sharded'), { settings: hub.settings });
    expect(readdirSync(join(hub.settings.cacheDir, 'models--tiny--sharded', 'snapshots', commit)).sort()).toEqual([
      'config.json',
      'model-00001-of-00002.safetensors',
      'model-00002-of-00002.safetensors',
      'model.safetensors.index.json',
      'preprocessor_config.json',
    ]);
    const local = join(mkdtempSync(join(tmpdir(), 'jepa-shards-')), 'hfvit');
    mkdirSync(local);
    for (const [name, bytes] of files) if (name !== 'model.fp16.safetensors') writeFileSync(join(local, name), bytes);
    expect(readFileSync(pulled.gguf)).toEqual(await converted(join(local, 'model.safetensors.index.json')));
  });

  it("pulls a Meta repository's .pth alone and converts it", async () => {
    const pth = join(REFERENCE, 'dinov3_meta', 'dinov3_vittiny16_pretrain_seeded.pth');
    hub.server.seed(
      'tiny/dinov3-meta',
      new Map([
        ['dinov3_vittiny16_pretrain_seeded.pth', readFileSync(pth)],
        ['README.md', Buffer.from('# Meta weights\n')],
        ['LICENSE.md', Buffer.from('license text\n')],
      ]),
    );
    const pulled = await pullModel(parseHubReference('hf:tiny/dinov3-meta'), { settings: hub.settings });
    expect(readdirSync(join(hub.settings.cacheDir, 'models--tiny--dinov3-meta', 'snapshots', pulled.commit))).toEqual([
      'dinov3_vittiny16_pretrain_seeded.pth',
    ]);
    expect(readFileSync(pulled.gguf)).toEqual(await converted(pth));
  });
});
