// A tool's media argument -> the server's item: a path (checked later against the roots by the
// server's PathPolicy), or bytes from a data: URI or plain base64, refused above the size limit
// before a byte of it is decoded.
import { type ItemKind, type ParsedItem, badField, decodeBase64 } from '@jepa/engine';

export const MEDIA_KINDS = ['image', 'video', 'frames', 'tensor'] as const satisfies readonly ItemKind[];

/** What a tool takes: a string (an absolute path or a data: URI) or {path} / {data} with an optional kind. */
export type MediaArg = string | { path?: string | undefined; data?: string | undefined; kind?: ItemKind | undefined };

const DATA_URI = /^data:([^,]*),/i;

/** Bytes that base64 text of this many characters decodes to (its padding off); nothing is decoded. */
export function base64DecodedBytes(length: number, pad: number): number {
  return Math.floor(((length - pad) * 3) / 4);
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * Refuses base64 (or a data: URI) whose decoded size is over `maxBytes`, from its length alone, with a
 * message naming both; returns the media type of a data: URI ('' for plain base64).
 */
export function checkMediaSize(field: string, text: string, maxBytes: number): string {
  const uri = DATA_URI.exec(text.slice(0, 512));
  const bodyStart = uri ? uri[0].length : 0;
  const length = text.length - bodyStart;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = base64DecodedBytes(length, pad);
  if (bytes > maxBytes)
    throw badField(field, `${mib(bytes)} of media (${mib(length)} of base64) is over the ${mib(maxBytes)} limit (--max-media-mb)`, 'media_too_large');
  return uri ? uri[1]!.split(';')[0]!.trim().toLowerCase() : '';
}

/** The kind of base64 media without a `kind`: a data: URI's type says video or .npy; anything else is an image. */
function kindOfType(type: string, fallback: ItemKind): ItemKind {
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('image/')) return 'image';
  return fallback;
}

/**
 * The server item for a media argument. `fallback` is the kind of base64 media that says none (the
 * tool's: embed_video's is a video); `pathKind` the kind a path without `kind` gets (null: the
 * server's rule by extension, .npy frames or tensor, a video extension, else an image).
 */
export function mediaItem(field: string, value: MediaArg, maxBytes: number, fallback: ItemKind, pathKind: ItemKind | null): ParsedItem {
  const fromPath = (path: string, kind: ItemKind | undefined): ParsedItem => ({
    field,
    kind: 'path',
    path,
    as: kind ?? (path.toLowerCase().endsWith('.npy') ? null : pathKind),
  });
  const fromData = (text: string, kind: ItemKind | undefined): ParsedItem => {
    const type = checkMediaSize(field, text, maxBytes);
    return { field, kind: kind ?? kindOfType(type, fallback), bytes: decodeBase64(field, text) };
  };
  if (typeof value === 'string') {
    if (value.length === 0) throw badField(field, 'empty: give an absolute path, a data: URI, or {"data": base64}');
    if (DATA_URI.test(value.slice(0, 512))) return fromData(value, undefined);
    return fromPath(value, undefined);
  }
  const given = [value.path, value.data].filter((x) => x !== undefined);
  if (given.length !== 1) throw badField(field, 'give exactly one of "path" or "data"', 'invalid_item');
  if (value.path !== undefined) return fromPath(value.path, value.kind);
  return fromData(value.data!, value.kind);
}
