// NODE_USE_ENV_PROXY=1 sends a pull's file downloads through HTTP_PROXY, as Node's own fetch does then;
// without it they go direct. A real CONNECT proxy on loopback records the tunnels it opens.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseHubReference, pullModel } from '@jepa/hub';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HFVIT, type HubFixture, startHub } from './hub-fixture.js';

const saved = { NODE_USE_ENV_PROXY: process.env.NODE_USE_ENV_PROXY, HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
const tunnels: string[] = [];
let proxy: Server;
let hub: HubFixture;

beforeAll(async () => {
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  process.env.NO_PROXY = '';
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  proxy.closeAllConnections();
  await new Promise<void>((done) => proxy.close(() => done()));
});
beforeEach(async () => {
  hub = await startHub();
  tunnels.length = 0;
});
afterEach(async () => {
  await hub.close();
});

describe('a pull behind a proxy', () => {
  it('goes direct without NODE_USE_ENV_PROXY, HTTP_PROXY set or not (negative control)', async () => {
    delete process.env.NODE_USE_ENV_PROXY;
    await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    expect(tunnels).toEqual([]);
  });

  it('downloads the files through HTTP_PROXY with NODE_USE_ENV_PROXY=1, with the same bytes', async () => {
    process.env.NODE_USE_ENV_PROXY = '1';
    const pulled = await pullModel(parseHubReference('hf:tiny/hfvit'), { settings: hub.settings });
    expect(tunnels.length).toBeGreaterThan(0);
    expect(new Set(tunnels)).toEqual(new Set([new URL(hub.server.url).host]));
    const snapshot = join(hub.settings.cacheDir, 'models--tiny--hfvit', 'snapshots', pulled.commit);
    expect(readFileSync(join(snapshot, 'model.safetensors')).equals(readFileSync(join(HFVIT, 'model.safetensors')))).toBe(true);
  });
});
