// A loopback Hub seeded with tiny checkpoints in their release layout, and settings pointing at it
// with empty caches of their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HubSettings } from '@jepa/hub';
import { filesOfFolder, HubServer, REFERENCE } from '@jepa/testing';

export const HFVIT = join(REFERENCE, 'hfvit');
export const DINOV3 = join(REFERENCE, 'dinov3_hf');
const CHECKPOINT = /^(config\.json|preprocessor_config\.json|model\.safetensors)$/;

/** A repo's files: the tiny checkpoint plus what a real repo carries and a pull must leave alone. */
export function repoFiles(folder: string): Map<string, Buffer> {
  const files = filesOfFolder(folder, (p) => CHECKPOINT.test(p));
  files.set('README.md', Buffer.from('# a tiny seeded model\n'));
  files.set('pytorch_model.bin', Buffer.from('not wanted beside safetensors'));
  files.set('onnx/model.onnx', Buffer.from('not wanted'));
  files.set('flax_model.msgpack', Buffer.from('not wanted'));
  files.set('tf_model.h5', Buffer.from('not wanted'));
  return files;
}

export interface HubFixture {
  server: HubServer;
  settings: HubSettings;
  dir: string;
  close(): Promise<void>;
}

export async function startHub(): Promise<HubFixture> {
  const server = new HubServer();
  server.pageSize = 3;
  server.seed('tiny/hfvit', repoFiles(HFVIT));
  server.seed('tiny/dinov3-gated', repoFiles(DINOV3), { gated: true });
  server.tokens.add('hf_allowed');
  server.otherTokens.add('hf_noaccess');
  await server.start();
  const dir = mkdtempSync(join(tmpdir(), 'jepa-hub-'));
  const settings: HubSettings = {
    endpoint: server.url,
    cacheDir: join(dir, 'hf', 'hub'),
    jepaCache: join(dir, 'jepa'),
    offline: false,
    retryDelayMs: 5,
    attempts: 4,
  };
  return {
    server,
    settings,
    dir,
    close: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
