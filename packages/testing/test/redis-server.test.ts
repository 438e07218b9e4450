// The RedisServer fixture itself: a real redis-server that answers raw RESP, keeps an acknowledged
// write across a SIGKILL and restart (the AOF, fsynced always), and leaves no dir behind after stop().
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../src/redis-server.js';

/** Sends one command as a RESP array and resolves with the raw reply once it is complete. */
function command(port: number, ...args: string[]): Promise<string> {
  const req = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    let buf = '';
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(5000, () => socket.destroy(new Error('timed out waiting for a reply')));
    socket.once('error', reject);
    socket.once('connect', () => socket.write(req));
    socket.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      const complete = buf.startsWith('$')
        ? buf.startsWith('$-1\r\n') || buf.length >= buf.indexOf('\r\n') + 2 + Number(buf.slice(1, buf.indexOf('\r\n'))) + 2
        : buf.includes('\r\n');
      if (buf.includes('\r\n') && complete) {
        socket.end();
        resolve(buf);
      }
    });
  });
}

describe('RedisServer', () => {
  const started: RedisServer[] = [];
  afterAll(async () => {
    for (const s of started) await s.stop();
  });

  it('keeps an acknowledged write across SIGKILL and restart, and removes its dir on stop', async () => {
    const server = await RedisServer.start();
    started.push(server);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(existsSync(server.dir)).toBe(true);

    expect(await command(server.port, 'SET', 'k', 'v')).toBe('+OK\r\n');
    expect(await command(server.port, 'GET', 'k')).toBe('$1\r\nv\r\n');

    await server.kill();
    expect(server.running).toBe(false);
    expect(existsSync(server.dir)).toBe(true);
    await expect(command(server.port, 'PING')).rejects.toThrow();

    await server.restart();
    expect(server.running).toBe(true);
    expect(await command(server.port, 'GET', 'k')).toBe('$1\r\nv\r\n');

    await server.stop();
    expect(server.running).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
  });

  it('gives each server its own port and dir', async () => {
    const [a, b] = await Promise.all([RedisServer.start(), RedisServer.start()]);
    started.push(a, b);
    expect(a.port).not.toBe(b.port);
    expect(a.dir).not.toBe(b.dir);
    expect(await command(a.port, 'SET', 'only', 'a')).toBe('+OK\r\n');
    expect(await command(b.port, 'GET', 'only')).toBe('$-1\r\n');
  });
});
