// The texts a command takes: repeated flags (--text, --label) and a file of one per line (--texts, --labels).
import { readFileSync } from 'node:fs';
import { checkInputFile, UserError } from '../user-error.js';

/** The flag values, then the file's non-empty lines (a trailing newline and CRLF endings are fine), in order. */
export function textList(values: readonly string[] | undefined, file: string | undefined, fileFlag: string): string[] {
  const texts = [...(values ?? [])];
  if (file !== undefined) {
    checkInputFile(file, fileFlag);
    texts.push(
      ...readFileSync(file, 'utf8')
        .split(/\r?\n/)
        .filter((line) => line.trim() !== ''),
    );
  }
  return texts;
}

/** Commander's collector for a repeatable flag. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function requireTexts(texts: readonly string[], what: string): void {
  if (texts.length === 0) throw new UserError(`no ${what} given`);
}
