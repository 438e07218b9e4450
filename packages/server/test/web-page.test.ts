// The page at / in a real browser: Debian's chromium driven by puppeteer-core, against a real server
// on loopback. A file picked in the file input and files dropped through a DataTransfer; the PCA
// canvas must hold a non-trivial picture, the embedding time must be shown, then the top classes of
// a model with a head, the cosine of two items and a LeWM plan's cost per CEM iteration. Last, the
// time from a drop to the PCA map of 1024-px photos (median of 5), printed and written to tmp/.
// JEPA_WEB_BENCH_MODEL=FILE.gguf times that model too. Without a browser (JEPA_CHROMIUM, or chromium on
// PATH) or the built page the tests fail, naming the step that installs or builds it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type HTTPRequest, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { demo, get, heads, png, requireWebPage, root, sampleJpg, startServer, tmp } from './helpers.js';

function findChromium(): string | null {
  // JEPA_CHROMIUM names the browser; one that is not there fails the tests (JEPA_CHROMIUM=none to try that)
  if (process.env.JEPA_CHROMIUM) return existsSync(process.env.JEPA_CHROMIUM) ? process.env.JEPA_CHROMIUM : null;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return null;
}

const chromium = findChromium();
const NO_CHROMIUM = 'no chromium: install it with bash scripts/setup.sh (or apt-get install chromium), or name one with JEPA_CHROMIUM=path';

const dir = tmp('web');
const model = (name: string, as: string) => {
  const p = join(dir, `${as}.gguf`);
  copyFileSync(join(heads, name, 'model.gguf'), p);
  return p;
};
const shots = join(root, 'tmp');
mkdirSync(shots, { recursive: true });

/** 1024-px JPEG photos when tmp/photos has them, else 1024 × 768 PNGs of seeded noise (said in the output). */
function photos(): { paths: string[]; what: string } {
  const folder = join(root, 'tmp/photos/many-1000/1024');
  const jpgs = Array.from({ length: 6 }, (_, i) => join(folder, `photo_${String(i).padStart(4, '0')}.jpg`));
  if (jpgs.every(existsSync)) return { paths: jpgs, what: 'tmp/photos/many-1000/1024 JPEGs' };
  const pngs = Array.from({ length: 6 }, (_, i) => {
    const p = join(dir, `photo${i}.png`);
    writeFileSync(p, png(1024, 768, 100 + i));
    return p;
  });
  return { paths: pngs, what: '1024x768 PNGs of seeded noise (no tmp/photos)' };
}

/** Drops files on the drop zone through a DataTransfer, as a user's drag does. */
async function dropFiles(page: Page, paths: string[]): Promise<void> {
  const files = paths.map((p) => ({
    name: p.split('/').pop()!,
    type: p.endsWith('.png') ? 'image/png' : 'image/jpeg',
    b64: readFileSync(p).toString('base64'),
  }));
  await page.evaluate((files) => {
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    document.getElementById('drop')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files);
}

const itemCount = (page: Page) => page.$$eval('.item', (els) => els.length);

/** Waits for item n's PCA map and returns what its canvas holds. */
async function mapOf(page: Page, n: number) {
  await page.waitForSelector(`#item-${n}[data-done]`, { timeout: 60_000 });
  return page.$eval(`#item-${n}`, (box) => {
    const c = box.querySelector('canvas.pca') as HTMLCanvasElement;
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    let sum = 0;
    let sum2 = 0;
    for (let i = 0; i < px.length; i += 4) {
      seen.add((px[i]! << 16) | (px[i + 1]! << 8) | px[i + 2]!);
      const v = px[i]! + px[i + 1]! + px[i + 2]!;
      sum += v;
      sum2 += v * v;
    }
    const n = px.length / 4;
    return {
      done: (box as HTMLElement).dataset.done,
      width: c.width,
      height: c.height,
      colours: seen.size,
      variance: sum2 / n - (sum / n) ** 2,
      embedText: box.querySelector('.embed-time')!.textContent ?? '',
      mapText: box.querySelector('.map-time')!.textContent ?? '',
      mapMs: Number((box as HTMLElement).dataset.mapMs),
    };
  });
}

describe('the page at / in chromium', () => {
  let server: JepaServer;
  let browser: Browser;
  let page: Page;
  const pooler = model('vjepa2_pooler', 'pooler');
  const lewm = model('lewm', 'lewm');

  beforeAll(async () => {
    if (chromium === null) throw new Error(NO_CHROMIUM);
    requireWebPage();
    const extra = process.env.JEPA_WEB_BENCH_MODEL;
    server = await startServer({ models: [demo, pooler, lewm, ...(extra ? [extra] : [])] });
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 1000 });
    page.on('pageerror', (err) => console.log(`page error: ${String(err)}`));
    await page.goto(`${server.url}/`);
    await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists the loaded models', async () => {
    const ids = await page.$$eval('#model option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(ids.slice(0, 3)).toEqual(['jepa-demo-vjepa2-untrained', 'pooler', 'lewm']);
  });

  it('a file picked: the PCA map on a canvas (non-constant) and the embedding time', async () => {
    const input = await page.$('input#file');
    await input!.uploadFile(sampleJpg);
    const m = await mapOf(page, 1);
    console.log(`sample.jpg on the demo model: ${m.colours} colours, variance ${m.variance.toFixed(0)}; ${m.embedText}; ${m.mapText}`);
    expect(m.done).toBe('1');
    expect([m.width, m.height]).toEqual([128, 128]);
    expect(m.colours).toBeGreaterThan(100);
    expect(m.variance).toBeGreaterThan(0);
    await page.waitForFunction(() => /embedding: \d+ ms/.test(document.querySelector('#item-1 .embed-time')!.textContent ?? ''), {
      timeout: 30_000,
    });
  });

  it('a second item dropped: the cosine similarity of the two', async () => {
    await dropFiles(page, [join(root, 'fixtures/preprocess/decode/baseline420.jpg')]);
    const m = await mapOf(page, 2);
    expect(m.colours).toBeGreaterThan(100);
    await page.waitForSelector('#similarity[data-cosine]', { timeout: 30_000 });
    const cos = Number(await page.$eval('#similarity', (e) => (e as HTMLElement).dataset.cosine));
    expect(cos).toBeGreaterThan(-1.0001);
    expect(cos).toBeLessThan(1.0001);
    expect(await page.$eval('#plan', (e) => (e as HTMLElement).hidden)).toBe(true);
  });

  it('a model with a head: its top classes', async () => {
    await page.select('#model', 'pooler');
    await dropFiles(page, [sampleJpg]);
    await mapOf(page, 3);
    await page.waitForFunction(() => document.querySelectorAll('#item-3 .topk li').length === 5, { timeout: 30_000 });
    const top = await page.$$eval('#item-3 .topk li', (lis) => lis.map((l) => l.textContent ?? ''));
    expect(top[0]).toMatch(/^class_[a-j] {2}\d+\.\d %$/);
  });

  it('a LeWorldModel: the plan from the first item to the second, its cost per CEM iteration plotted', async () => {
    await page.select('#model', 'lewm');
    await dropFiles(page, [sampleJpg]);
    await mapOf(page, 4);
    await dropFiles(page, [join(root, 'fixtures/preprocess/decode/baseline420.jpg')]);
    await mapOf(page, 5);
    await page.waitForSelector('#plan[data-costs]', { timeout: 60_000 });
    const costs = JSON.parse(await page.$eval('#plan', (e) => (e as HTMLElement).dataset.costs!)) as number[];
    expect(costs).toHaveLength(12);
    expect(costs.every(Number.isFinite)).toBe(true);
    const inked = await page.$eval('#plan-plot', (c) => {
      const px = (c as HTMLCanvasElement).getContext('2d')!.getImageData(0, 0, 480, 200).data;
      let n = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i]! > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(500);
    await page.screenshot({ path: join(shots, 'web-page.png'), fullPage: true });
    console.log(`screenshot: ${join(shots, 'web-page.png')}`);
  });

  it('encodes each item once: one POST per dropped item, one item through the encoder, for the map, the embedding and the classes', async () => {
    const encodedItems = async () => Number(/^jepa_batch_size_sum (\S+)$/m.exec((await get(server, '/metrics')).text)![1]);
    await page.select('#model', 'pooler');
    const posts: string[] = [];
    const onRequest = (r: HTTPRequest) => {
      if (r.method() === 'POST') posts.push(new URL(r.url()).pathname);
    };
    page.on('request', onRequest);
    try {
      const before = await encodedItems();
      const n = (await itemCount(page)) + 1;
      await dropFiles(page, [sampleJpg]);
      await mapOf(page, n);
      await page.waitForFunction(
        (n) =>
          document.querySelectorAll(`#item-${n} .topk li`).length === 5 &&
          /embedding: \d+ ms/.test(document.querySelector(`#item-${n} .embed-time`)!.textContent ?? ''),
        { timeout: 30_000 },
        n,
      );
      expect(posts).toEqual(['/v1/features']);
      expect((await encodedItems()) - before).toBe(1);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('measures: drop to PCA map for 1024-px photos, median of 5 (after one untimed)', async () => {
    const { paths, what } = photos();
    const ids = await page.$$eval('#model option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    const runs: { model: string; what: string; times: number[]; median: number }[] = [];
    for (const id of [ids[0]!, ...ids.slice(3)]) {
      await page.select('#model', id);
      const times: number[] = [];
      let last = '';
      for (const [i, p] of paths.entries()) {
        const n = (await itemCount(page)) + 1;
        await dropFiles(page, [p]);
        const m = await mapOf(page, n);
        expect(m.done).toBe('1');
        if (i > 0) times.push(m.mapMs);
        last = `${m.embedText}; ${m.mapText}`;
      }
      const sorted = [...times].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      console.log(
        `web: drop to PCA map, ${what}, ${id}, 2 threads: median ${median.toFixed(0)} ms of ${times.map((t) => t.toFixed(0)).join(', ')} (the last: ${last})`,
      );
      runs.push({ model: id, what, times, median });
      expect(times).toHaveLength(5);
    }
    writeFileSync(join(shots, 'web-bench.json'), `${JSON.stringify(runs, null, 2)}\n`);
  });

  it('with an API key: the page loads, asks for the key, and takes it from ?key=', async () => {
    const keyed = await startServer({ models: [demo], apiKey: 's3cret' });
    try {
      const p = await browser.newPage();
      await p.goto(`${keyed.url}/`);
      await p.waitForFunction(() => /API key/.test(document.getElementById('status')!.textContent ?? ''), { timeout: 30_000 });
      await p.goto(`${keyed.url}/?key=s3cret`);
      await p.waitForSelector('body[data-ready]', { timeout: 30_000 });
      expect(await p.$$eval('#model option', (os) => os.length)).toBe(1);
      await p.close();
    } finally {
      await keyed.close();
    }
  });
});
