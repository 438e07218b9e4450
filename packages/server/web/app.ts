// The page at / of `jepa serve`: drop an image or a clip, pick a loaded model, and see what the
// server's routes say about it. Plain DOM, no framework; bundled by esbuild into dist/web/app.js.
// The page is public; its API calls send the key from the field (filled from ?key=, kept for the tab).

import { type SearchApi, showMatches } from './search-view.js';

interface ModelCard {
  id: string;
  family: string;
  dims: number;
  frames: number;
  image_size: number;
  labels: string[] | null;
  endpoints: string[];
}

/** POST /v1/features with include: the map, the embedding (base64) and, for a model with a head, the top classes. */
interface FeaturesAnswer {
  data: {
    width: number;
    height: number;
    grid: { t: number; h: number; w: number };
    explained_variance: number[];
    png: string;
    view: string;
    embedding: string;
    top?: { label: string; prob: number }[];
  }[];
  timing: { encode_ms: number; pca_ms: number; total_ms: number };
}

interface Item {
  name: string;
  input: Record<string, string>;
  embedding: Promise<Float32Array | null>;
}

class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const modelSelect = byId<HTMLSelectElement>('model');
const keyInput = byId<HTMLInputElement>('key');
const statusLine = byId<HTMLSpanElement>('status');
const drop = byId<HTMLElement>('drop');
const fileInput = byId<HTMLInputElement>('file');
const itemsBox = byId<HTMLElement>('items');
const compare = byId<HTMLElement>('compare');

let models: ModelCard[] = [];
let items: Item[] = [];
let counter = 0;
/** The server's index (GET /v1/search), or null where it has none: then the page does not search. */
let searchIndex: { rows: number; model: { pool: string } } | null = null;

const params = new URLSearchParams(location.search);
keyInput.value = params.get('key') ?? sessionStorage.getItem('jepa-key') ?? '';

function status(text: string, error = false): void {
  statusLine.textContent = text;
  statusLine.classList.toggle('error', error);
}

async function api<T>(path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (keyInput.value) headers.authorization = `Bearer ${keyInput.value}`;
  const init: RequestInit = { method: body === undefined ? 'GET' : 'POST', headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path, init);
  const json = (await r.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (!r.ok) {
    if (r.status === 401) {
      status('this server wants an API key: type it in the field above (or open the page with ?key=…)', true);
      keyInput.focus();
    }
    throw new ApiFailure(r.status, json?.error?.message ?? `HTTP ${r.status}`);
  }
  return json as T;
}

const searchApi: SearchApi = {
  post: (path, body) => api(path, body),
  async blob(path) {
    const r = await fetch(path, { headers: keyInput.value ? { authorization: `Bearer ${keyInput.value}` } : {} });
    if (!r.ok) throw new ApiFailure(r.status, `HTTP ${r.status}`);
    return r.blob();
  },
};

const wordsBox = byId<HTMLElement>('words');
const wordsForm = byId<HTMLFormElement>('words-form');
const wordsInput = byId<HTMLInputElement>('words-text');
const wordsHits = byId<HTMLElement>('words-hits');

async function loadIndex(): Promise<void> {
  searchIndex = await api<{ rows: number; model: { pool: string } }>('/v1/search').catch(() => null);
  document.body.dataset.index = searchIndex ? String(searchIndex.rows) : 'none';
  // words search an index of a text model's aligned vectors only
  wordsBox.hidden = searchIndex?.model.pool !== 'aligned';
}

wordsForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const text = wordsInput.value.trim();
  if (!text || !searchIndex) return;
  wordsHits.replaceChildren();
  void showMatches(wordsHits, searchApi, modelSelect.value, { text });
});

function model(): ModelCard | undefined {
  return models.find((m) => m.id === modelSelect.value);
}

async function loadModels(): Promise<void> {
  try {
    const list = await api<{ data: ModelCard[] }>('/v1/models');
    models = list.data;
    const keep = modelSelect.value;
    modelSelect.replaceChildren(
      ...models.map((m) => {
        const o = document.createElement('option');
        o.value = m.id;
        o.textContent = `${m.id} (${m.family}, ${m.dims}-d)`;
        return o;
      }),
    );
    if (models.some((m) => m.id === keep)) modelSelect.value = keep;
    status(`${models.length} model${models.length === 1 ? '' : 's'} loaded`);
    await loadIndex();
    document.body.dataset.ready = '1';
  } catch (err) {
    if (!(err instanceof ApiFailure && err.status === 401)) status(`GET /v1/models: ${(err as Error).message}`, true);
  }
}

function base64Of(file: File): Promise<string> {
  return new Promise((done, fail) => {
    const reader = new FileReader();
    reader.onerror = () => fail(reader.error ?? new Error('the file could not be read'));
    reader.onload = () => {
      const url = String(reader.result);
      done(url.slice(url.indexOf(',') + 1));
    };
    reader.readAsDataURL(file);
  });
}

function float32Of(b64: string): Float32Array {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return new Float32Array(bytes.buffer);
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

async function pngImage(b64: string): Promise<HTMLImageElement> {
  const img = new Image();
  img.src = `data:image/png;base64,${b64}`;
  await img.decode();
  return img;
}

/** One dropped file: its card, then the routes' answers filling it as they come. */
async function addFile(file: File, t0: number): Promise<void> {
  const card = model();
  if (!card) {
    status('no model is loaded (or the API key is missing)', true);
    return;
  }
  const n = ++counter;
  const box = element('div', undefined, 'item');
  box.id = `item-${n}`;
  box.append(element('h3', `${n}. ${file.name} → ${card.id}`));
  const facts = element('div', undefined, 'facts');
  const embedLine = element('p', 'embedding…', 'embed-time');
  const mapLine = element('p', 'PCA map…', 'map-time');
  facts.append(embedLine, mapLine);
  const maps = element('div', undefined, 'maps');
  const pca = element('canvas', undefined, 'pca');
  const overlay = element('canvas', undefined, 'overlay');
  pca.title = 'PCA of the patch features: components 1, 2, 3 as red, green, blue';
  overlay.title = "the map at 50 % over the network's view of the input";
  maps.append(pca, overlay);
  box.append(maps, facts);
  itemsBox.prepend(box);

  const b64 = await base64Of(file);
  const input = { [file.type.startsWith('video/') ? 'video' : 'image']: b64 };

  // one request per item: the map, the embedding and the top classes all come from its one encode
  const withHead = card.endpoints.includes('/v1/classify');
  const list = element('ol', undefined, 'topk');
  if (withHead) facts.append(element('p', 'top classes:'), list);
  const tSent = performance.now();
  const features = api<FeaturesAnswer>('/v1/features', {
    model: card.id,
    input,
    include: withHead ? ['embedding', 'classes'] : ['embedding'],
    normalize: true,
    encoding_format: 'base64',
    ...(withHead ? { top_k: 5 } : {}),
  });
  const embedding = features.then(
    (r) => {
      const ms = performance.now() - tSent;
      embedLine.textContent =
        `embedding: ${ms.toFixed(0)} ms (${card.dims}-d, the POST /v1/features round trip with the map; ` +
        `encoded in ${r.timing.encode_ms.toFixed(0)} ms)`;
      box.dataset.embedMs = ms.toFixed(1);
      return float32Of(r.data[0]!.embedding);
    },
    (err: Error) => {
      embedLine.textContent = `embedding failed: ${err.message}`;
      embedLine.classList.add('error');
      return null;
    },
  );
  const item: Item = { name: `${n}. ${file.name}`, input, embedding };
  if (searchIndex && 'image' in input) void showMatches(box, searchApi, card.id, { input });
  items.push(item);
  if (withHead)
    features.then(
      (r) => list.replaceChildren(...(r.data[0]!.top ?? []).map((c) => element('li', `${c.label}  ${(100 * c.prob).toFixed(1)} %`))),
      (err: Error) => list.replaceChildren(element('li', `classify failed: ${err.message}`, 'error')),
    );

  try {
    const f = await features;
    const d = f.data[0]!;
    const [map, view] = await Promise.all([pngImage(d.png), pngImage(d.view)]);
    for (const c of [pca, overlay]) {
      c.width = d.width;
      c.height = d.height;
    }
    pca.getContext('2d')!.drawImage(map, 0, 0);
    const o = overlay.getContext('2d')!;
    o.drawImage(view, 0, 0);
    o.globalAlpha = 0.5;
    o.drawImage(map, 0, 0);
    const ms = performance.now() - t0;
    const share = d.explained_variance.map((v) => `${(100 * v).toFixed(0)} %`).join(', ');
    mapLine.textContent =
      `PCA map: ${ms.toFixed(0)} ms from the drop (server ${f.timing.total_ms.toFixed(0)} ms, of it PCA ${f.timing.pca_ms.toFixed(1)} ms); ` +
      `${d.grid.h}×${d.grid.w} patches${d.grid.t > 1 ? `, ${d.grid.t} time slices averaged` : ''}; variance ${share}`;
    box.dataset.mapMs = ms.toFixed(1);
    box.dataset.done = '1';
  } catch (err) {
    mapLine.textContent = `PCA map failed: ${(err as Error).message}`;
    mapLine.classList.add('error');
    box.dataset.done = 'error';
  }
  await embedding;
  void compareLast(card);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
}

/** The last two items: their cosine similarity, and for a LeWorldModel the CEM plan from the first to the second. */
async function compareLast(card: ModelCard): Promise<void> {
  if (items.length < 2) return;
  const [a, b] = items.slice(-2) as [Item, Item];
  const [ea, eb] = await Promise.all([a.embedding, b.embedding]);
  compare.hidden = false;
  const sim = byId<HTMLParagraphElement>('similarity');
  if (ea && eb && ea.length === eb.length) {
    const c = cosine(ea, eb);
    sim.textContent = `cosine similarity of ${a.name} and ${b.name}: ${c.toFixed(4)}`;
    sim.dataset.cosine = String(c);
  } else sim.textContent = 'cosine similarity: an embedding is missing';
  const plan = byId<HTMLElement>('plan');
  if (!card.endpoints.includes('/v1/worldmodel/plan') || !('image' in a.input) || !('image' in b.input)) {
    plan.hidden = true;
    return;
  }
  plan.hidden = false;
  const summary = byId<HTMLParagraphElement>('plan-summary');
  summary.textContent = 'planning…';
  try {
    const t = performance.now();
    const r = await api<{ best_costs: number[]; horizon: number; action_dim: number }>('/v1/worldmodel/plan', {
      model: card.id,
      images: [a.input],
      goal: b.input,
      horizon: 5,
      samples: 64,
      iterations: 12,
      top_k: 8,
      seed: 0,
    });
    plot(byId<HTMLCanvasElement>('plan-plot'), r.best_costs);
    summary.textContent =
      `${r.best_costs.length} CEM iterations, horizon ${r.horizon}, ${r.action_dim}-d actions, ${(performance.now() - t).toFixed(0)} ms; ` +
      `best cost ${r.best_costs[0]!.toFixed(3)} → ${r.best_costs[r.best_costs.length - 1]!.toFixed(3)}`;
    plan.dataset.costs = JSON.stringify(r.best_costs);
  } catch (err) {
    summary.textContent = `plan failed: ${(err as Error).message}`;
  }
}

/** A small line plot of the cost per iteration, axes labelled. */
function plot(canvas: HTMLCanvasElement, ys: number[]): void {
  const g = canvas.getContext('2d')!;
  const W = canvas.width;
  const H = canvas.height;
  const pad = { l: 56, r: 12, t: 12, b: 28 };
  g.clearRect(0, 0, W, H);
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const span = hi - lo || 1;
  const x = (i: number) => pad.l + ((W - pad.l - pad.r) * i) / Math.max(1, ys.length - 1);
  const y = (v: number) => pad.t + (H - pad.t - pad.b) * (1 - (v - lo) / span);
  g.strokeStyle = '#999';
  g.beginPath();
  g.moveTo(pad.l, pad.t);
  g.lineTo(pad.l, H - pad.b);
  g.lineTo(W - pad.r, H - pad.b);
  g.stroke();
  g.fillStyle = '#333';
  g.font = '11px system-ui, sans-serif';
  g.fillText(hi.toFixed(2), 4, pad.t + 8);
  g.fillText(lo.toFixed(2), 4, H - pad.b);
  g.fillText('iteration', W / 2 - 20, H - 6);
  g.fillText('1', pad.l - 3, H - pad.b + 14);
  g.fillText(String(ys.length), W - pad.r - 12, H - pad.b + 14);
  g.strokeStyle = '#2a6df4';
  g.lineWidth = 2;
  g.beginPath();
  for (const [i, v] of ys.entries()) {
    if (i === 0) g.moveTo(x(i), y(v));
    else g.lineTo(x(i), y(v));
  }
  g.stroke();
  g.fillStyle = '#2a6df4';
  for (const [i, v] of ys.entries()) g.fillRect(x(i) - 2, y(v) - 2, 4, 4);
}

async function addFiles(files: FileList | File[], t0: number): Promise<void> {
  for (const f of Array.from(files)) await addFile(f, t0);
}

drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  const t0 = performance.now();
  e.preventDefault();
  drop.classList.remove('over');
  if (e.dataTransfer?.files.length) void addFiles(e.dataTransfer.files, t0);
});
fileInput.addEventListener('change', () => {
  const t0 = performance.now();
  if (fileInput.files?.length) void addFiles(Array.from(fileInput.files), t0);
  fileInput.value = '';
});
keyInput.addEventListener('change', () => {
  sessionStorage.setItem('jepa-key', keyInput.value);
  void loadModels();
});
modelSelect.addEventListener('change', () => {
  // embeddings of two models do not compare: start over
  items = [];
  compare.hidden = true;
});

void loadModels();
