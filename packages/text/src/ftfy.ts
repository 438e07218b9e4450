import { ftfyUnescape } from './html.js';

/**
 * The part of ftfy.fix_text (ftfy 6, default settings) that CLIP's clean-up relies on and that needs no
 * guess about encodings. Each line (up to and with its '\n') is fixed to a fixed point by, in ftfy's
 * order: HTML entities (ftfy's 'auto': not once a line has held '<', and then for the rest of the
 * text), latin ligatures, full-width characters, curly quotes, line breaks, terminal escapes,
 * control characters, NFC.
 *
 * Left out, and documented in the README: fix_encoding (mojibake such as "Ã±" for "ñ", a statistical
 * guess) with fix_c1_controls, which goes with it; lone surrogates, which become U+FFFD when the text
 * is encoded as UTF-8; and ftfy's split of lines longer than a million characters.
 */
export function fixText(text: string): string {
  let out = '';
  let entities = true;
  for (let pos = 0; pos < text.length; ) {
    const newline = text.indexOf('\n', pos);
    const end = newline < 0 ? text.length : newline + 1;
    const segment = text.slice(pos, end);
    if (segment.includes('<')) entities = false;
    out += fixSegment(segment, entities);
    pos = end;
  }
  return out;
}

function fixSegment(segment: string, entities: boolean): string {
  let text = segment;
  for (;;) {
    const before = text;
    if (entities) text = ftfyUnescape(text);
    text = mapChars(text, LIGATURES);
    text = mapChars(text, WIDTH);
    text = text.replace(/[\u201c-\u201f]/g, '"').replace(/[\u02bc\u2018-\u201b]/g, "'");
    text = text.replace(/\r\n|[\r\u2028\u2029\u0085]/g, '\n');
    text = text.replace(TERMINAL_ESCAPE, '');
    text = text.replace(CONTROL, '');
    text = text.normalize('NFC');
    if (text === before) return text;
  }
}

function mapChars(text: string, table: ReadonlyMap<string, string>): string {
  let out = '';
  for (const ch of text) out += table.get(ch) ?? ch;
  return out;
}

/** Latin ligatures (ﬁ, ﬂ, Ĳ, ǆ, ...) to their letters, by NFKC. */
const LIGATURES: ReadonlyMap<string, string> = new Map(Array.from('ĲĳĿŀŉǄǅǆǇǈǉǊǋǌǱǲǳﬀﬁﬂﬃﬄﬅﬆ', (ch) => [ch, ch.normalize('NFKC')]));

/** Full-width and half-width forms (U+FF01..U+FFEF) to their usual width by NFKC, and the ideographic space to a space. */
const WIDTH: ReadonlyMap<string, string> = (() => {
  const table = new Map<string, string>([['\u3000', ' ']]);
  for (let cp = 0xff01; cp < 0xfff0; cp++) {
    const ch = String.fromCodePoint(cp);
    const plain = ch.normalize('NFKC');
    if (plain !== ch) table.set(ch, plain);
  }
  return table;
})();

/** ANSI terminal escapes (colours and the like). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts what it removes
const TERMINAL_ESCAPE = /\x1b\[((?:\d|;)*)([a-zA-Z])/g;

/** The control characters ftfy removes: C0 but tab, LF, FF and CR; DEL; the deprecated format characters; BOM; interlinear annotation. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it removes
const CONTROL = /[\x00-\x08\x0b\x0e-\x1f\x7f\u206a-\u206f\ufeff\ufff9-\ufffc]/g;
