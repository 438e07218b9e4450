// The page's index search (`jepa serve --index DIR`): the rows nearest a dropped image, or words (an
// index made by a dino.txt model), each as a thumbnail of its file (a video at its window's start)
// with its score, and a video hit's time range.

export interface SearchHit {
  id: number;
  path: string;
  score: number;
  start_s?: number;
  end_s?: number;
}

/** What the page needs from its API helper: JSON answers, and a file as a blob (the key sent with it). */
export interface SearchApi {
  post<T>(path: string, body: unknown): Promise<T>;
  blob(path: string): Promise<Blob>;
}

const seconds = (s: number) => `${s.toFixed(2)} s`;

/** The time range of a video hit, or null for an image. */
export function rangeText(h: SearchHit): string | null {
  return h.start_s === undefined ? null : `${seconds(h.start_s)}–${seconds(h.end_s ?? h.start_s)}`;
}

async function thumbnail(api: SearchApi, h: SearchHit): Promise<HTMLElement> {
  const path = `/v1/search/file/${h.id}`;
  if (h.start_s === undefined) {
    const img = document.createElement('img');
    img.src = URL.createObjectURL(await api.blob(path));
    img.alt = h.path;
    return img;
  }
  // the file itself with a media fragment: the frame at the window's start (Chromium refuses a blob:
  // URL as a media source; so a video thumbnail needs a server without an API key)
  const video = document.createElement('video');
  video.muted = true;
  video.preload = 'auto';
  const start = h.start_s;
  // the fragment alone leaves some builds on the first frame until played: seek there too
  video.addEventListener('loadedmetadata', () => {
    if (video.currentTime !== start) video.currentTime = start;
  });
  video.src = `${path}#t=${start}`;
  return video;
}

/** The query of a search: an item (a dropped image), or words. */
export type SearchQuery = { input: Record<string, string> } | { text: string };

/** Fills `box` with the top `k` rows of the index nearest the query, embedded by `model`. */
export async function showMatches(box: HTMLElement, api: SearchApi, model: string, query: SearchQuery, k = 8): Promise<void> {
  const section = document.createElement('div');
  section.className = 'matches';
  const title = document.createElement('p');
  title.textContent = 'nearest in the index…';
  section.append(title);
  box.append(section);
  try {
    const r = await api.post<{ data: SearchHit[]; rows: number }>('/v1/search', { model, ...query, k });
    title.textContent = `nearest ${r.data.length} of the index's ${r.rows} rows:`;
    const grid = document.createElement('div');
    grid.className = 'match-grid';
    for (const h of r.data) {
      const fig = document.createElement('figure');
      fig.className = 'match';
      fig.dataset.id = String(h.id);
      fig.dataset.score = String(h.score);
      const caption = document.createElement('figcaption');
      const range = rangeText(h);
      caption.textContent = `${h.score.toFixed(3)} ${h.path.split('/').pop()}`;
      caption.title = h.path;
      if (range) {
        fig.dataset.range = range;
        caption.append(Object.assign(document.createElement('span'), { className: 'range', textContent: range }));
      }
      fig.append(caption);
      grid.append(fig);
      thumbnail(api, h).then(
        (t) => fig.prepend(t),
        (err: Error) => fig.prepend(Object.assign(document.createElement('span'), { textContent: `(no thumbnail: ${err.message})` })),
      );
    }
    section.append(grid);
    section.dataset.done = '1';
  } catch (err) {
    title.textContent = `search failed: ${(err as Error).message}`;
    title.classList.add('error');
    section.dataset.done = 'error';
  }
}
