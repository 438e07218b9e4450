import { HTML5_ENTITIES, INVALID_CHARREFS, INVALID_CODEPOINTS } from './html-entities.js';

/** Python's html.unescape pattern: a numeric reference, or up to 32 name characters; ';' optional. */
const CHARREF = /&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)/gu;

function numericRef(ref: string): string {
  const hex = ref[1] === 'x' || ref[1] === 'X';
  const digits = ref.slice(hex ? 2 : 1).replace(/;$/, '');
  // past 0x10FFFF every value gives U+FFFD; a long run of digits is past it
  const num = digits.replace(/^0+/, '').length > 8 ? Number.POSITIVE_INFINITY : Number.parseInt(digits, hex ? 16 : 10);
  const mapped = INVALID_CHARREFS.get(num);
  if (mapped !== undefined) return mapped;
  if ((num >= 0xd800 && num <= 0xdfff) || num > 0x10ffff) return '\ufffd';
  if (INVALID_CODEPOINTS.has(num)) return '';
  return String.fromCodePoint(num);
}

function namedRef(name: string): string {
  const whole = HTML5_ENTITIES.get(name);
  if (whole !== undefined) return whole;
  // the longest known prefix of two characters or more (only the legacy names match without ';')
  const chars = Array.from(name);
  for (let n = chars.length - 1; n > 1; n--) {
    const prefix = chars.slice(0, n).join('');
    const text = HTML5_ENTITIES.get(prefix);
    if (text !== undefined) return text + chars.slice(n).join('');
  }
  return `&${name}`;
}

/** Python's html.unescape: every named and numeric character reference, as HTML5 decodes it. */
export function htmlUnescape(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(CHARREF, (_match, ref: string) => (ref[0] === '#' ? numericRef(ref) : namedRef(ref)));
}

/** ftfy's entity table: the names with ';', and the lower-case ones upper-cased where that means nothing else. */
function ftfyEntities(): Map<string, string> {
  const table = new Map<string, string>();
  for (const [name, text] of HTML5_ENTITIES) {
    if (!name.endsWith(';')) continue;
    table.set(`&${name}`, text);
    if (name === name.toLowerCase()) {
      const upper = `&${name.toUpperCase()}`;
      if (htmlUnescape(upper) === upper) table.set(upper, text.toUpperCase());
    }
  }
  return table;
}

let FTFY_ENTITIES: Map<string, string> | undefined;
const FTFY_ENTITY = /&#?[0-9A-Za-z]{1,24};/g;

/** ftfy's unescape_html: only references that end in ';', named ones from its table, numeric ones through html.unescape. */
export function ftfyUnescape(text: string): string {
  FTFY_ENTITIES ??= ftfyEntities();
  const table = FTFY_ENTITIES;
  return text.replace(FTFY_ENTITY, (ref) => {
    const named = table.get(ref);
    if (named !== undefined) return named;
    if (ref.startsWith('&#')) {
      const out = htmlUnescape(ref);
      return out.includes(';') ? ref : out;
    }
    return ref;
  });
}
