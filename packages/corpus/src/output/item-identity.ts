import { statSync } from 'node:fs';

/** What --resume compares: an input is the same if its path, size and mtime are. */
export interface ItemIdentity {
  size: number;
  mtimeMs: number;
}

export function identityOf(path: string): ItemIdentity | null {
  try {
    const info = statSync(path);
    return { size: info.size, mtimeMs: info.mtimeMs };
  } catch {
    return null; // a missing input fails on its own, and is identified by its path alone
  }
}

export function sameIdentity(a: ItemIdentity | null, b: { size?: number; mtimeMs?: number }): boolean {
  if (a === null) return b.size === undefined;
  return a.size === b.size && a.mtimeMs === b.mtimeMs;
}
