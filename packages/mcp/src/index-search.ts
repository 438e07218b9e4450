// The `search` tool's work: the index of `jepa mcp --index DIR` (@jepa/search), searched with a query
// the engine embeds (media, or words), or a stored row; the answer is POST /v1/search's and `jepa search --json`'s rows.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type CallOptions, type Engine, type ParsedItem, badField, parseText } from '@jepa/engine';
import { DB_FILE, type Hit, VectorIndex } from '@jepa/search';

export interface SearchHit {
  id: number;
  path: string;
  score: number;
  window?: number;
  start_s?: number;
  end_s?: number;
}

export function hitOut(h: Hit): SearchHit {
  return {
    id: h.id,
    path: h.path,
    score: h.score,
    ...(h.window === undefined ? {} : { window: h.window }),
    ...(h.startS === undefined ? {} : { start_s: h.startS, end_s: h.endS! }),
  };
}

export class IndexSearch {
  #index: VectorIndex | null = null;

  constructor(
    readonly dir: string | null,
    private readonly engine: Engine,
  ) {}

  #opened(): VectorIndex {
    if (this.dir === null) throw badField('index', 'no index: start jepa mcp with --index DIR', 'no_index');
    if (this.#index === null) {
      if (!existsSync(join(this.dir, DB_FILE))) throw badField('index', `no index in ${this.dir} yet (jepa index add makes one)`, 'index_empty');
      this.#index = VectorIndex.open(this.dir);
    }
    return this.#index;
  }

  async search(
    args: {
      model?: string | undefined;
      item?: ParsedItem | undefined;
      text?: string | undefined;
      row?: number | undefined;
      k?: number | undefined;
      exact?: boolean | undefined;
    },
    call: CallOptions,
  ): Promise<{ model: string | null; rows: number; results: SearchHit[] }> {
    const index = this.#opened();
    const given = [args.item, args.text, args.row].filter((q) => q !== undefined).length;
    if (given !== 1)
      throw badField(
        'query',
        'give one of "query" (media), "text" (words) or "row" (a stored row id)',
        given === 0 ? 'missing_field' : 'conflicting_fields',
      );
    const r = await this.engine.search(
      {
        index,
        model: args.model,
        ...(args.item !== undefined ? { item: args.item } : args.text !== undefined ? { text: parseText(args.text, 'text') } : { row: args.row! }),
        k: args.k ?? 10,
        mode: args.exact ? 'exact' : 'auto',
      },
      call,
    );
    return { model: r.model, rows: index.info().rows, results: r.hits.map(hitOut) };
  }

  close(): void {
    this.#index?.close();
    this.#index = null;
  }
}
