// node:sqlite (Node >= 22.13 without a flag), as far as this package uses it: the workspace's
// @types/node (20.x) does not declare it yet.
declare module 'node:sqlite' {
  type SqlValue = null | number | bigint | string | Uint8Array;
  export class StatementSync {
    run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
    get(...params: SqlValue[]): Record<string, SqlValue> | undefined;
    all(...params: SqlValue[]): Record<string, SqlValue>[];
    iterate(...params: SqlValue[]): IterableIterator<Record<string, SqlValue>>;
  }
  export class DatabaseSync {
    constructor(path: string, options?: { open?: boolean; readOnly?: boolean; timeout?: number });
    exec(sql: string): void;
    prepare(sql: string): StatementSync;
    close(): void;
    readonly isOpen: boolean;
  }
}
