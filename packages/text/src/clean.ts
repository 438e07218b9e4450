import { fixText } from './ftfy.js';
import { htmlUnescape } from './html.js';

/** Python's str.isspace characters: Unicode White_Space and the four information separators U+001C..U+001F. */
const PY_SPACE = '[\\p{White_Space}\\x1c-\\x1f]';
const PY_STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'gu');
const PY_SPLIT = new RegExp(`${PY_SPACE}+`, 'u');

/** Python's str.split() with no argument: the runs between whitespace, none empty. */
export function pySplit(text: string): string[] {
  return text.split(PY_SPLIT).filter((part) => part !== '');
}

/** Python's str.strip() with no argument. */
export function pyStrip(text: string): string {
  return text.replace(PY_STRIP, '');
}

/** CLIP's basic_clean: ftfy.fix_text (the subset in ftfy.ts), html.unescape twice, strip. */
export function basicClean(text: string): string {
  return pyStrip(htmlUnescape(htmlUnescape(fixText(text))));
}

/** CLIP's whitespace_clean: every run of whitespace (regex's \s: White_Space) to one space, strip. */
export function whitespaceClean(text: string): string {
  return pyStrip(text.replace(/\p{White_Space}+/gu, ' '));
}

/** The text CLIP tokenizes: basic_clean, whitespace_clean, then lower case (full case mapping, as Python's str.lower). */
export function cleanText(text: string): string {
  return whitespaceClean(basicClean(text)).toLowerCase();
}
