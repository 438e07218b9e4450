import { readFileSync } from 'node:fs';

/** Whether two files hold the same bytes. */
export function cmpSync(a: string, b: string): boolean {
  return readFileSync(a).equals(readFileSync(b));
}
