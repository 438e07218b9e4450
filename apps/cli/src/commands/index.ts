// `jepa index add | prune | info | dedupe`: an index of embeddings on disk (@jepa/search, docs/search.md).
import { existsSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { type Hit, VectorIndex } from '@jepa/search';
import { printLines, say } from '../display-text.js';
import { indexAddCommand } from './index-add.js';

/** A cosine threshold: a number in (-1, 1]. */
function cosine(text: string): number {
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v) || v <= -1 || v > 1) throw new InvalidArgumentError('expected a cosine in (-1, 1]');
  return v;
}

/** `path` or `path [12.00-14.00 s]` for a window of a video. */
export function placeText(h: { path: string; startS?: number | undefined; endS?: number | undefined }): string {
  return h.startS === undefined ? h.path : `${h.path} [${h.startS.toFixed(2)}-${(h.endS ?? h.startS).toFixed(2)} s]`;
}

/** A hit as JSON: snake_case times, present only for a video's window. */
export function hitJson(h: Hit): Record<string, unknown> {
  return {
    id: h.id,
    path: h.path,
    score: h.score,
    ...(h.window === undefined ? {} : { window: h.window }),
    ...(h.startS === undefined ? {} : { start_s: h.startS, end_s: h.endS }),
  };
}

function withIndex<T>(dir: string, run: (index: VectorIndex) => T): T {
  const index = VectorIndex.open(dir);
  try {
    return run(index);
  } finally {
    index.close();
  }
}

export function indexCommand(program: Command): void {
  const index = program.command('index').description('an index of embeddings on disk, for jepa search (docs/search.md)');
  indexAddCommand(index);

  index
    .command('prune')
    .description('drop the rows of files that no longer exist')
    .requiredOption('--db <dir>', 'the index folder')
    .action((flags: { db: string }) => {
      const r = withIndex(flags.db, (i) => i.prune((p) => existsSync(p)));
      say(`${r.files} files gone, ${r.rows} rows dropped`);
    });

  index
    .command('info')
    .description('the model, the number of rows and files, the dimension and the size on disk')
    .requiredOption('--db <dir>', 'the index folder')
    .option('--json', 'print it as JSON')
    .action((flags: { db: string; json?: boolean }) => {
      const info = withIndex(flags.db, (i) => i.info());
      const m = info.model;
      if (flags.json) {
        const model = { name: m.name, file: m.file, path: m.path ?? null, sha256: m.digest, pool: m.pool };
        process.stdout.write(`${JSON.stringify({ model, rows: info.rows, files: info.files, dim: info.dim, bytes: info.bytes })}\n`);
        return;
      }
      printLines(
        `model: ${m.name} (${m.file}, sha256 ${m.digest}, pool ${m.pool})`,
        `rows: ${info.rows} of ${info.files} files`,
        `dimension: ${info.dim}`,
        `size on disk: ${(info.bytes / 2 ** 20).toFixed(2)} MiB (${info.bytes} bytes)`,
      );
    });

  index
    .command('dedupe')
    .description('print groups of near-duplicates: rows whose cosine to another of the group is at least T')
    .requiredOption('--db <dir>', 'the index folder')
    .requiredOption('--threshold <t>', 'the cosine at which two rows are near-duplicates (0.95 is a start)', cosine)
    .option('--json', 'print the groups as JSON lines')
    .action((flags: { db: string; threshold: number; json?: boolean }) => {
      const groups = withIndex(flags.db, (i) => i.dedupe(flags.threshold));
      for (const [g, members] of groups.entries()) {
        if (flags.json) process.stdout.write(`${JSON.stringify({ group: g + 1, rows: members.map(hitJson) })}\n`);
        else printLines(`group ${g + 1} (${members.length})`, ...members.map((h) => `  ${placeText(h)}`));
      }
      say(`${groups.length} groups of near-duplicates at cosine >= ${flags.threshold}`);
    });
}
