// The page's index search in Debian's chromium (puppeteer-core) against a real server on loopback,
// started with an index built by `jepa index add`: a dropped image shows its nearest rows as
// thumbnails, itself first, and a video hit with its time range; a server without an index shows none.
// With an index of a dino.txt model (fixtures/reference/dinotxt), words typed in the search box show the
// rows POST /v1/search answers for them, as thumbnails.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { convertDinotxt, dinotxtReference } from '@jepa/testing';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JepaServer } from '../src/index.js';
import { jepa, png, post, requireWebPage, sampleMp4, startServer, THREADS, tmp } from './helpers.js';

function findChromium(): string | null {
  if (process.env.JEPA_CHROMIUM) return existsSync(process.env.JEPA_CHROMIUM) ? process.env.JEPA_CHROMIUM : null;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return null;
}

const chromium = findChromium();
const dir = tmp('web-search');
const photos = join(dir, 'photos');
const db = join(dir, 'db');
let model = '';
let images: string[] = [];

async function dropFile(page: Page, path: string): Promise<void> {
  const file = { name: path.split('/').pop()!, b64: readFileSync(path).toString('base64') };
  await page.evaluate((f) => {
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: 'image/png' }));
    document.getElementById('drop')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, file);
}

async function open(browser: Browser, server: JepaServer): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (err) => console.log(`page error: ${String(err)}`));
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  return page;
}

describe('the page searches the index', () => {
  let browser: Browser;
  let withIndex: JepaServer;
  let without: JepaServer;

  beforeAll(async () => {
    if (chromium === null)
      throw new Error('no chromium: install it with bash scripts/setup.sh (or apt-get install chromium), or name one with JEPA_CHROMIUM=path');
    requireWebPage();
    mkdirSync(photos);
    images = Array.from({ length: 5 }, (_, i) => {
      const p = join(photos, `w${i}.png`);
      writeFileSync(p, png(24, 20, 40 + i));
      return p;
    });
    copyFileSync(sampleMp4, join(photos, 'clip.mp4'));
    model = forgeModel('hfvit', { seed: 7, path: join(dir, 'vit.gguf') }).path;
    const r = jepa('index', 'add', '--db', db, '-m', model, photos, join(photos, 'clip.mp4'), '--window-seconds', '0.5', '-t', String(THREADS));
    expect(r.code, r.err).toBe(0);
    [withIndex, without] = await Promise.all([
      startServer({ models: [model], allowPaths: [photos], index: db }),
      startServer({ models: [model], allowPaths: [photos] }),
    ]);
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await withIndex?.close();
    await without?.close();
  });

  it('a dropped image: its nearest rows as thumbnails, itself first, a video hit with its time range', async () => {
    const page = await open(browser, withIndex);
    expect(await page.$eval('body', (b) => b.dataset.index)).toBe('9');
    // an index of image vectors (pool cls): no search by words
    expect(await page.$eval('#words', (f) => (f as HTMLElement).hidden)).toBe(true);
    await dropFile(page, images[2]!);
    await page.waitForSelector('.matches[data-done="1"]', { timeout: 60_000 });
    const figures = await page.$$eval('figure.match', (fs) =>
      fs.map((f) => ({
        caption: f.querySelector('figcaption')!.textContent,
        range: (f as HTMLElement).dataset.range ?? null,
        score: Number((f as HTMLElement).dataset.score),
      })),
    );
    expect(figures).toHaveLength(8);
    expect(figures[0]!.caption).toMatch(/^1\.000 w2\.png$/);
    expect(figures.filter((f) => f.range !== null).map((f) => f.range)).toContain('0.52 s–0.52 s');
    // the thumbnails load: images decoded, videos with their metadata
    await page.waitForFunction(
      () => {
        const imgs = [...document.querySelectorAll('figure.match img')] as HTMLImageElement[];
        const vids = [...document.querySelectorAll('figure.match video')] as HTMLVideoElement[];
        return (
          imgs.length + vids.length === 8 &&
          imgs.every((i) => i.complete && i.naturalWidth > 0) &&
          vids.every(
            (v) =>
              v.readyState >= 2 &&
              !v.seeking &&
              v.currentTime > 0 === ((v.closest('figure') as HTMLElement).dataset.range?.startsWith('0.00') === false),
          )
        );
      },
      { timeout: 30_000 },
    );
    expect(await page.$eval('figure.match img', (i) => (i as HTMLImageElement).naturalWidth)).toBe(24);
    await page.screenshot({ path: join(dir, 'web-search.png'), fullPage: true });
  }, 120_000);

  it('a server without an index: no search', async () => {
    const page = await open(browser, without);
    expect(await page.$eval('body', (b) => b.dataset.index)).toBe('none');
    expect(await page.$eval('#words', (f) => (f as HTMLElement).hidden)).toBe(true);
    await dropFile(page, images[1]!);
    await page.waitForSelector('.item[data-done]', { timeout: 60_000 });
    expect(await page.$$('.matches')).toHaveLength(0);
  }, 120_000);
});

describe('the page searches the index by words', () => {
  let browser: Browser;
  let server: JepaServer;
  const words = join(dir, 'words');
  const wordsDb = join(dir, 'words-db');
  const ref = dinotxtReference();

  beforeAll(async () => {
    if (chromium === null)
      throw new Error('no chromium: install it with bash scripts/setup.sh (or apt-get install chromium), or name one with JEPA_CHROMIUM=path');
    requireWebPage();
    mkdirSync(words);
    for (let i = 0; i < 5; i++) writeFileSync(join(words, `d${i}.png`), png(40, 36, 90 + i));
    const dinotxt = convertDinotxt(join(dir, 'dinotxt.gguf'));
    const r = jepa('index', 'add', '--db', wordsDb, '-m', dinotxt, words, '-t', String(THREADS));
    expect(r.code, r.err).toBe(0);
    server = await startServer({ models: [dinotxt], allowPaths: [words], index: wordsDb });
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('words: the rows POST /v1/search answers, as thumbnails with their scores', async () => {
    const page = await open(browser, server);
    expect(await page.$eval('#words', (f) => (f as HTMLElement).hidden)).toBe(false);
    await page.type('#words-text', ref.texts[1]!);
    await page.click('#words button[type=submit]');
    await page.waitForSelector('#words-hits .matches[data-done="1"]', { timeout: 60_000 });
    const figures = await page.$$eval('#words-hits figure.match', (fs) =>
      fs.map((f) => ({ id: Number((f as HTMLElement).dataset.id), score: Number((f as HTMLElement).dataset.score) })),
    );
    const want = await post(server, '/v1/search', { text: ref.texts[1], k: 8 });
    expect(figures.map((f) => f.id)).toEqual(want.json.data.map((h: { id: number }) => h.id));
    expect(figures).toHaveLength(5);
    await page.waitForFunction(
      () => {
        const imgs = [...document.querySelectorAll('#words-hits figure.match img')] as HTMLImageElement[];
        return imgs.length === 5 && imgs.every((i) => i.complete && i.naturalWidth > 0);
      },
      { timeout: 30_000 },
    );
    await page.screenshot({ path: join(dir, 'web-words.png'), fullPage: true });
  }, 120_000);
});
