// Bytes in: strict standard or URL-safe base64, optionally inside a data: URI; URLs are refused, never fetched.
import { badField } from '../errors.js';

const URL_LIKE = /^([a-z][a-z0-9+.-]*:\/\/|file:)/i;
const DATA_URI = /^data:([^,]*),/i;

/**
 * Bytes from standard or URL-safe base64, optionally inside a data: URI, or bytes as they are (the
 * server's raw and multipart uploads). Node's decoder skips what
 * it cannot read, so a decoded length short of what the text promises means the text was not base64.
 */
export function decodeBase64(field: string, value: unknown): Buffer {
  // the bytes themselves: a raw or multipart upload's file (JSON cannot hold these)
  if (value instanceof Uint8Array) {
    if (value.length === 0) throw badField(field, 'empty', 'invalid_item');
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  if (typeof value !== 'string') throw badField(field, 'must be a base64 string', 'invalid_base64');
  let text = value;
  const uri = DATA_URI.exec(text.slice(0, 512));
  if (uri) {
    if (!/;base64$/i.test(uri[1]!)) throw badField(field, 'a data: URI must be base64 (data:<type>;base64,...)', 'invalid_base64');
    text = text.slice(uri[0].length);
  } else if (URL_LIKE.test(text.slice(0, 64))) {
    throw badField(
      field,
      'URLs are not fetched; send the bytes as base64 or a data: URI (or a file under --allow-path as {"path": ...})',
      'url_not_supported',
    );
  }
  if (text.length === 0) throw badField(field, 'empty', 'invalid_base64');
  let pad = 0;
  if (text.endsWith('==')) pad = 2;
  else if (text.endsWith('=')) pad = 1;
  const body = text.length - pad;
  if ((pad > 0 && text.length % 4 !== 0) || body % 4 === 1) throw badField(field, 'not valid base64 (bad length)', 'invalid_base64');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== Math.floor((body * 3) / 4)) throw badField(field, 'not valid base64 (a character outside the alphabet)', 'invalid_base64');
  return bytes;
}
