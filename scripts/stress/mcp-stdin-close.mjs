// `jepa mcp`'s exit when the client closes stdin, under contention: COPIES clients at once, each
// ROUNDS times, start a `jepa mcp` on the demo model (with a library printing console.log noise, as the
// stdout test does), initialize, embed an image, send an unknown method and a bad argument, close
// stdin, and expect exit code 0. Prints each other exit with its stderr, then the count.
// Build first (pnpm build).
//   node scripts/stress/mcp-stdin-close.mjs [COPIES=4] [ROUNDS=25]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seededPng } from '../../packages/testing/dist/index.js';

const copies = Number(process.argv[2] ?? 4);
const rounds = Number(process.argv[3] ?? 25);
const cli = resolve('apps/cli/dist/main.js');
const demo = resolve('fixtures/demo/jepa-demo-vjepa2-untrained.gguf');
const dir = mkdtempSync(join(tmpdir(), 'jepa-mcp-stdin-close-'));
const allowed = join(dir, 'allowed');
mkdirSync(allowed);
const image = join(allowed, 'a.png');
writeFileSync(image, seededPng(20, 18, 5));
const noisy = join(dir, 'noisy.cjs');
writeFileSync(
  noisy,
  `const write = process.stderr.write.bind(process.stderr);
let on = false;
process.stderr.write = (...a) => {
  if (!on && String(a[0]).startsWith('jepa: ')) {
    on = true;
    setInterval(() => console.log('noise from a library'), 50).unref();
  }
  return write(...a);
};
`,
);

async function session() {
  const child = spawn(process.execPath, ['-r', noisy, cli, 'mcp', '-m', demo, '--root', allowed, '-t', '2'], {
    env: { ...process.env, JEPA_DEVICE: 'cpu' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise((done) => child.once('exit', (code, signal) => done(signal ?? code)));
  const answer = async (id, message) => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, ...message })}\n`);
    for (let i = 0; i < 600; i++) {
      if (out.split('\n').some((l) => l.includes(`"id":${id}`))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no answer to ${id}: ${err}`);
  };
  await answer(1, {
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stress', version: '0' } },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await answer(2, { method: 'tools/call', params: { name: 'embed_image', arguments: { image } } });
  await answer(3, { method: 'no/such/method', params: {} });
  await answer(4, { method: 'tools/call', params: { name: 'embed_image', arguments: { image: 42 } } });
  child.stdin.end();
  return { code: await exited, err };
}

let wrong = 0;
await Promise.all(
  Array.from({ length: copies }, async () => {
    for (let r = 0; r < rounds; r++) {
      const { code, err } = await session();
      if (code === 0) continue;
      wrong++;
      console.log(`exit ${code}:\n${err}`);
    }
  }),
);
rmSync(dir, { recursive: true, force: true });
console.log(`${wrong} of ${copies * rounds} exits were not 0`);
