/**
 * CLIP's bytes_to_unicode: each of the 256 byte values as one printable character, so that BPE works
 * on strings with no whitespace or control characters. The printable Latin-1 bytes ('!'..'~',
 * '¡'..'¬', '®'..'ÿ') stand for themselves; the other 68 take U+0100 onwards, in byte order.
 * `BYTE_CHARS[b]` is byte b's character; the table's order (printable first) is the vocabulary's.
 */
function byteTable(): { order: number[]; chars: string[] } {
  const order: number[] = [];
  const inRange = (from: string, to: string) => {
    for (let b = from.charCodeAt(0); b <= to.charCodeAt(0); b++) order.push(b);
  };
  inRange('!', '~');
  inRange('¡', '¬');
  inRange('®', 'ÿ');
  const chars = new Array<string>(256);
  for (const b of order) chars[b] = String.fromCharCode(b);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (chars[b] !== undefined) continue;
    order.push(b);
    chars[b] = String.fromCharCode(256 + extra++);
  }
  return { order, chars };
}

const TABLE = byteTable();

/** Byte value to its character. */
export const BYTE_CHARS: readonly string[] = TABLE.chars;

/** The 256 characters in the vocabulary's order (ids 0..255; with '</w>', ids 256..511). */
export const VOCAB_BYTE_CHARS: readonly string[] = TABLE.order.map((b) => TABLE.chars[b]);

const utf8 = new TextEncoder();

/** A pre-token's UTF-8 bytes as byte characters (a lone surrogate is encoded as U+FFFD). */
export function toByteChars(token: string): string {
  let out = '';
  for (const b of utf8.encode(token)) out += BYTE_CHARS[b];
  return out;
}
