/** What the first bytes say a file is, for choosing to decode it and for naming it in errors. */
export type DecodableFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'tiff' | 'heif';

export interface Sniffed {
  /** null: not a format this decoder reads. */
  format: DecodableFormat | null;
  /** For messages: JPEG, PNG, AVIF, HEIC, GGUF, text, ... */
  label: string;
}

const ascii = (bytes: Uint8Array, from: number, to: number): string => String.fromCharCode(...bytes.subarray(from, Math.min(to, bytes.length)));

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs', 'mif1', 'msf1']);

export function hexHead(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
}

function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 256);
  return head.every((b) => b === 9 || b === 10 || b === 13 || (b >= 0x20 && b !== 0x7f));
}

export function sniff(bytes: Uint8Array): Sniffed {
  if (bytes.length === 0) return { format: null, label: 'empty file' };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { format: 'jpeg', label: 'JPEG' };
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { format: 'png', label: 'PNG' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return { format: 'webp', label: 'WebP' };
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return { format: 'gif', label: 'GIF' };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) {
    return { format: 'tiff', label: 'TIFF' };
  }
  if (startsWith(bytes, [0x49, 0x49, 0x2b, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2b])) {
    return { format: 'tiff', label: 'BigTIFF' };
  }
  if (ascii(bytes, 4, 8) === 'ftyp') {
    const brand = ascii(bytes, 8, 12);
    if (AVIF_BRANDS.has(brand)) return { format: 'heif', label: 'AVIF' };
    if (HEIF_BRANDS.has(brand)) return { format: 'heif', label: 'HEIF' };
    return { format: null, label: `ISO media file (brand "${brand}")` };
  }
  if (ascii(bytes, 0, 4) === 'GGUF') return { format: null, label: 'GGUF file' };
  if (ascii(bytes, 0, 2) === 'BM') return { format: null, label: 'BMP' };
  if (ascii(bytes, 0, 5) === '%PDF-') return { format: null, label: 'PDF' };
  if (startsWith(bytes, [0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20]) || startsWith(bytes, [0xff, 0x0a])) {
    return { format: null, label: 'JPEG XL' };
  }
  if (startsWith(bytes, [0x1f, 0x8b])) return { format: null, label: 'gzip data' };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return { format: null, label: 'ZIP archive' };
  if (looksLikeText(bytes)) return { format: null, label: /^\s*</.test(ascii(bytes, 0, 64)) ? 'XML/SVG/HTML text' : 'text' };
  return { format: null, label: `unknown data (starting ${hexHead(bytes)})` };
}
