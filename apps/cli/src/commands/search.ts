// `jepa search --db DIR QUERY`: the rows of an index nearest an image, a clip, a range of a clip
// (--start/--end), words (--text, for an index of a dino.txt model's aligned vectors), or a stored row
// (--row ID), by cosine. Words can be many queries (--text repeated, --texts FILE or - for standard
// input), answered in turn by one model and one open index, each query's hits written as it is answered.
import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import type { Command } from 'commander';
import { type Hit, type SearchMode, VectorIndex } from '@jepa/search';
import type { VideoWindowSource } from '@jepa/input';
import { displayText } from '../display-text.js';
import { addInputOptions, type InputFlags } from '../input-options.js';
import { IMAGE_EXTENSIONS } from '../inputs.js';
import { openSession, type RuntimeFlags } from '../open-session.js';
import type { ModelSession, Pool } from '@jepa/session';
import { addRuntimeOptions, positiveInt } from '../runtime-options.js';
import { checkInputFile, UserError } from '../user-error.js';
import { localModel } from '../hub-model.js';
import { parseSeconds } from '../window-options.js';
import { hitJson, placeText } from './index.js';
import { embedItems, fileItems, type IndexedModel, indexedModel, isVideo, modelInput } from './index-embed.js';
import { collect, textSource, textStream } from './text-list.js';

interface SearchFlags extends RuntimeFlags, InputFlags {
  db: string;
  model?: string;
  text?: string[];
  texts?: string;
  top: number;
  row?: number;
  start?: number;
  end?: number;
  json?: boolean;
  exact?: boolean;
}

/** The query's vector: a stored row's, or the query file's embedding by the index's model. */
async function queryVector(index: VectorIndex, query: string | undefined, flags: SearchFlags): Promise<{ vector: Float32Array; exclude?: number }> {
  if (flags.row !== undefined) {
    if (query !== undefined) throw new UserError(`give a query file or --row ${flags.row}, not both`);
    if (flags.start !== undefined || flags.end !== undefined) throw new UserError('--start/--end cut a clip; --row is a stored row');
    return { vector: index.row(flags.row).vector, exclude: flags.row };
  }
  if (query === undefined) throw new UserError('nothing to search for: give an image, a clip, or --row ID');
  checkInputFile(query);
  const video = isVideo(query);
  if (!video && !IMAGE_EXTENSIONS.has(extname(query).toLowerCase()))
    throw new UserError(`${query}: not an image or a video (by its extension); a query is an image, a clip, or --row ID`);
  if (!video && (flags.start !== undefined || flags.end !== undefined)) throw new UserError(`--start/--end cut a clip; ${query} is an image`);
  if (flags.start !== undefined && flags.end !== undefined && flags.end <= flags.start)
    throw new UserError(`--end ${flags.end} is not after --start ${flags.start}`);
  const model = await queryModel(index, flags);
  const sources: VideoWindowSource[] = [];
  const range = flags.start !== undefined || flags.end !== undefined;
  // a range is one window spanning it; a whole clip is sampled as `jepa embed --video` samples it
  const windows = range
    ? { ...(flags.start === undefined ? {} : { start: flags.start }), ...(flags.end === undefined ? {} : { end: flags.end }), ...rangeSeconds(flags) }
    : null;
  try {
    const items = (await fileItems(modelInput(model, flags), query, windows, sources)).slice(0, 1);
    let vector: Float32Array | null = null;
    let failure = 'no frames in that range';
    await embedItems(model, { ...flags, batch: 1 }, items, (records) => {
      for (const r of records) {
        if ('error' in r) failure = r.error;
        else vector ??= r.values;
      }
    });
    if (vector === null) throw new UserError(`${query}: ${failure}`);
    return { vector };
  } finally {
    for (const s of sources) await s.close();
  }
}

/** The index's model (-m, else the file it was made with), refused unless it is the file and pooling of its vectors. */
async function queryModel(index: VectorIndex, flags: SearchFlags): Promise<IndexedModel> {
  const modelPath = flags.model === undefined ? index.model.path : await localModel(flags.model);
  if (modelPath === undefined || !existsSync(modelPath))
    throw new UserError(`${index.dir} was made with ${index.model.file}${modelPath ? ` (${modelPath}, now missing)` : ''}; give it with -m`);
  const model = indexedModel(modelPath, index.model.pool as Pool);
  index.checkModel(model.identity);
  return model;
}

/**
 * Words as queries, in turn, by the index's model's text side loaded once: each query's hits written
 * before the next is read. Refused for an index of image vectors before any model loads. One --text
 * prints as a query always has; more queries, or any from --texts, carry their words: a `# words` line
 * before their hits, or a "query" field on each JSON hit.
 */
async function searchWords(index: VectorIndex, query: string | undefined, flags: SearchFlags): Promise<void> {
  if (query !== undefined) throw new UserError(`give a query file or --text, not both`);
  if (flags.row !== undefined) throw new UserError(`give --text or --row, not both`);
  if (flags.start !== undefined || flags.end !== undefined) throw new UserError('--start/--end cut a clip; --text is words');
  if (flags.text?.some((t) => t.trim() === '')) throw new UserError('--text: give some words');
  index.checkTextQuery(flags.text ? '--text' : '--texts');
  const queries = textStream(flags.text, flags.texts, '--texts');
  const model = await queryModel(index, flags);
  const session = await openSession(model.path, flags);
  const labelled = flags.texts !== undefined || flags.text!.length > 1;
  let answered = 0;
  try {
    for await (const text of queries) {
      const hits = index.search(await textVector(session, text), { k: flags.top, mode: flags.exact ? 'exact' : 'auto' });
      process.stdout.write(labelled ? labelledHits(text, hits, flags.json) : hitLines(hits, flags.json));
      answered++;
    }
  } finally {
    await session.dispose();
  }
  if (answered === 0) throw new UserError(`nothing to search for: ${textSource(flags.texts!)} has no text lines`);
}

/** The words' vector by the model's text side, unit length. */
async function textVector(session: ModelSession, text: string): Promise<Float32Array> {
  const [vector] = await session.embedText([text], { normalize: true });
  return vector!.values;
}

/** A range as one window: spanning end - start seconds, or a window of the model's frames from start. */
function rangeSeconds(flags: SearchFlags): { windowSeconds?: number } {
  return flags.start !== undefined && flags.end !== undefined ? { windowSeconds: flags.end - flags.start } : {};
}

export function searchCommand(program: Command): void {
  const cmd = program
    .command('search')
    .description('the rows of an index nearest a query: an image, a clip, a range of a clip, words (--text), or a stored row')
    .argument('[query]', 'an image or a video file')
    .requiredOption('--db <dir>', 'the index folder (jepa index add)')
    .option('-m, --model <gguf>', "the index's model (default: the file the index was made with)")
    .option('-k, --top <n>', 'how many results', positiveInt, 10)
    .option('--text <words>', 'query by words: an index made by a dino.txt model (its images in the text-aligned space); repeatable', collect)
    .option('--texts <file>', 'queries by words, one per line (after any --text), each answered as it is read; - reads standard input')
    .option('--row <id>', 'query by a stored row (its id in --json results); the row itself is left out', positiveInt)
    .option('--start <t>', 'the clip from this time (seconds or [hh:]mm:ss)', parseSeconds)
    .option('--end <t>', 'the clip up to this time', parseSeconds)
    .option('--exact', 'search every row (default: exact below 50,000 rows, the approximate index from there)')
    .option('--json', 'print one JSON object per result');
  addRuntimeOptions(cmd);
  addInputOptions(cmd);
  cmd.action(async (query: string | undefined, flags: SearchFlags) => {
    const index = VectorIndex.open(flags.db);
    try {
      if (flags.text !== undefined || flags.texts !== undefined) return await searchWords(index, query, flags);
      const q = await queryVector(index, query, flags);
      const mode: SearchMode = flags.exact ? 'exact' : 'auto';
      const hits = index.search(q.vector, { k: flags.top, mode, ...(q.exclude === undefined ? {} : { exclude: q.exclude }) });
      process.stdout.write(hitLines(hits, flags.json));
    } finally {
      index.close();
    }
  });
}

/** The hits, one line each: JSON objects, or score and place. */
function hitLines(hits: Hit[], json: boolean | undefined): string {
  if (json) return hits.map((h) => `${JSON.stringify(hitJson(h))}\n`).join('');
  return hits.map((h) => `${h.score.toFixed(4)}  ${displayText(placeText(h))}\n`).join('');
}

/** A query's hits with its words: a `# words` line before them, or a "query" field first in each JSON hit. */
function labelledHits(text: string, hits: Hit[], json: boolean | undefined): string {
  if (json) return hits.map((h) => `${JSON.stringify({ query: text, ...hitJson(h) })}\n`).join('');
  return `# ${displayText(text)}\n${hitLines(hits, false)}`;
}
