// `jepa index add`: embeds the new and changed files (by path, size and mtime, as embed --resume) into
// an index, one transaction per batch; a file is marked complete only once all its rows are in, so a
// killed run loses nothing committed and a rerun redoes only the unfinished files.
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import type { CorpusItem } from '@jepa/corpus';
import type { Pool } from '@jepa/engine';
import type { VideoWindowSource } from '@jepa/input';
import { APPROX_MIN_ROWS, type FileIdentity, type NewRow, VectorIndex } from '@jepa/search';
import { say } from '../display-text.js';
import { addInputOptions, type InputFlags } from '../input-options.js';
import { expandInputs } from '../inputs.js';
import type { RuntimeFlags } from '../open-session.js';
import { poolOption } from '../pool-option.js';
import { Progress } from '../progress.js';
import { addRuntimeOptions } from '../runtime-options.js';
import { UserError } from '../user-error.js';
import { localModel } from '../hub-model.js';
import { addWindowOptions, type WindowFlags, windowOptions } from '../window-options.js';
import { embedItems, fileItems, indexedModel, indexPath, isVideo, modelInput } from './index-embed.js';

interface AddFlags extends RuntimeFlags, InputFlags, WindowFlags {
  db: string;
  model: string;
  video?: string[];
  pool?: Pool;
}

function identityOf(path: string): FileIdentity | null {
  try {
    const s = statSync(path);
    return s.isFile() ? { path, size: s.size, mtimeMs: s.mtimeMs } : null;
  } catch {
    return null;
  }
}

export function indexAddCommand(index: Command): void {
  const cmd = index
    .command('add')
    .description('embed new and changed files into an index (images, clips; long videos per window with the window options)')
    .argument('[inputs...]', 'images, videos, folders (their images), globs or @list.txt files')
    .requiredOption('--db <dir>', 'the index folder (made when missing)')
    .requiredOption('-m, --model <gguf>', 'the model')
    .option('--video <clips...>', 'videos (also taken from the inputs by their extension)')
    .addOption(poolOption());
  addRuntimeOptions(cmd);
  addInputOptions(cmd);
  addWindowOptions(cmd);
  cmd.action(async (inputs: string[], flags: AddFlags) => {
    const paths = [...new Set([...expandInputs(inputs), ...(flags.video ?? [])].map(indexPath))];
    if (paths.length === 0) throw new UserError('nothing to index: give images, videos, folders or @list.txt files');
    const windows = windowOptions(flags);
    if (windows && !paths.some(isVideo))
      throw new UserError('--fps/--frames/--window-seconds/--stride/--start/--end sample videos; no input is a video');
    const model = indexedModel(await localModel(flags.model), flags.pool);
    const db = VectorIndex.openOrCreate(flags.db, model.identity);
    const sources: VideoWindowSource[] = [];
    try {
      const present: FileIdentity[] = [];
      const missing: string[] = [];
      for (const p of paths) {
        const id = identityOf(p);
        if (id === null) missing.push(p);
        else present.push(id);
      }
      for (const p of missing) say(`${p}: no such file (skipped)`);
      // rows of changed files, and of files a killed run left unfinished, go before the new ones come
      const todo = db.pending(present);
      say(
        `index ${flags.db}: ${model.identity.name} (${model.pool}, ${model.identity.dim}-d); ${paths.length - todo.length - missing.length} files unchanged, ${todo.length} to embed`,
      );
      const input = modelInput(model, flags);
      const items: CorpusItem[] = [];
      const fileOf = new Map<CorpusItem, FileIdentity>();
      for (const f of todo) {
        let its: CorpusItem[];
        try {
          its = await fileItems(input, f.path, windows, sources);
        } catch (err) {
          say(`${f.path}: ${err instanceof Error ? err.message : String(err)} (skipped)`);
          continue;
        }
        for (const it of its) fileOf.set(it, f);
        items.push(...its);
      }
      const failed = new Set<string>();
      let current: FileIdentity | null = null;
      let rowsAdded = 0;
      const progress = new Progress(items.length, 'index');
      await embedItems(model, flags, items, (records) => {
        const rows: NewRow[] = [];
        const started: FileIdentity[] = [];
        const finished: FileIdentity[] = [];
        for (const r of records) {
          const f = fileOf.get(r.item)!;
          if (current?.path !== f.path) {
            if (current && !failed.has(current.path)) finished.push(current);
            current = f;
            started.push(f);
          }
          if ('error' in r) {
            if (!failed.has(f.path)) say(`${f.path}: ${r.error} (skipped)`);
            failed.add(f.path);
            continue;
          }
          const meta = r.item.meta as { window?: number; start_s?: number; end_s?: number } | undefined;
          rows.push({ path: f.path, window: meta?.window, startS: meta?.start_s, endS: meta?.end_s, vector: r.values });
        }
        db.commit(rows, finished, started);
        rowsAdded += rows.length;
        progress.tick(records.length);
      });
      const last = current as FileIdentity | null;
      if (last && !failed.has(last.path)) db.commit([], [last]);
      if (failed.size > 0) db.forget([...failed]);
      for (const s of sources) if (s.warning) say(`warning: ${s.warning}`);
      const { seconds, perSecond } = progress.finish();
      const info = db.info();
      if (info.rows >= APPROX_MIN_ROWS) {
        const t = performance.now();
        const { rebuilt } = db.approxIndex();
        if (rebuilt) say(`approximate index brought up to date in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      }
      const rate = items.length > 0 ? ` in ${seconds.toFixed(2)} s (${perSecond.toFixed(2)} items/s)` : '';
      say(`${todo.length - failed.size} files embedded (${rowsAdded} rows)${rate}; the index holds ${info.rows} rows of ${info.files} files`);
      if (failed.size + missing.length > 0) throw new UserError(`${failed.size + missing.length} of ${paths.length} inputs failed`, 3);
    } finally {
      for (const s of sources) await s.close();
      db.close();
    }
  });
}
