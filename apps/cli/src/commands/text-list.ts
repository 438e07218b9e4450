// The texts a command takes: repeated flags (--text, --label) and a file of one per line (--texts, --labels).
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { checkInputFile, UserError } from '../user-error.js';

/** A line that holds a text: blank lines (a trailing newline, spacing between texts) hold none. */
const holdsText = (line: string) => line.trim() !== '';

/** The flag values, then the file's non-empty lines (a trailing newline and CRLF endings are fine), in order. */
export function textList(values: readonly string[] | undefined, file: string | undefined, fileFlag: string): string[] {
  const texts = [...(values ?? [])];
  if (file !== undefined) {
    checkInputFile(file, fileFlag);
    texts.push(...readFileSync(file, 'utf8').split(/\r?\n/).filter(holdsText));
  }
  return texts;
}

/**
 * textList's texts as they arrive: the flag values, then the file's non-empty lines, each handed on as
 * soon as it is read, so a caller can answer a line before the next is written. `-` is standard input.
 * The file is checked now, before the caller does anything slow.
 */
export function textStream(values: readonly string[] | undefined, file: string | undefined, fileFlag: string): AsyncIterable<string> {
  if (file !== undefined && file !== '-') checkInputFile(file, fileFlag);
  return (async function* () {
    yield* values ?? [];
    if (file === undefined) return;
    const lines = createInterface({ input: file === '-' ? process.stdin : createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) if (holdsText(line)) yield line;
  })();
}

/** What a --texts FILE is called in a message: `-` is standard input. */
export const textSource = (file: string) => (file === '-' ? 'standard input' : file);

/** Commander's collector for a repeatable flag. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function requireTexts(texts: readonly string[], what: string): void {
  if (texts.length === 0) throw new UserError(`no ${what} given`);
}
