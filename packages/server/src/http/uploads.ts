// Request bodies besides JSON: a raw image or video (`Content-Type: image/*`, `video/*`, the other
// fields in the query string) and multipart/form-data (files and fields). Each becomes the object a
// JSON body would be, its items holding the bytes themselves, so the routes and the engine's item
// parser take them the one way they take base64 (parseItem reads bytes as it reads base64).
import { extname } from 'node:path';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { badField } from '@jepa/engine';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { type Body, MAX_JSON_DEPTH, jsonDepth } from '../json.js';

/** The form fields that carry items, and whether each holds a list. */
const ITEM_FIELDS: Readonly<Record<string, 'list' | 'one'>> = { input: 'list', images: 'list', goal: 'one' };

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.gif', '.bmp', '.tif', '.tiff', '.avif', '.heic']);
const VIDEO_EXTENSIONS = new Set(['.mp4', '.m4v', '.mov', '.mkv', '.webm', '.avi', '.mpg', '.mpeg', '.ts', '.flv', '.wmv', '.3gp', '.ogv']);

/** Routes whose items are `images` and `goal`: a raw body cannot say which it is. */
const WORLD_ROUTES = /^\/v1\/worldmodel\//;

export function uploadParsers(app: FastifyInstance, maxBodyBytes: number, maxItems: number): void {
  app.addContentTypeParser(/^(image|video)\/[\w.+-]+$/i, { parseAs: 'buffer', bodyLimit: maxBodyBytes }, (req, body, done) => {
    try {
      done(null, rawBody(req, body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    formBody(req, payload, maxBodyBytes, maxItems).then(
      (body) => done(null, body),
      (err: Error) => done(err, undefined),
    );
  });
}

/** A raw image or video: the item is `input`, the query string gives the other fields. */
function rawBody(req: FastifyRequest, bytes: Buffer): Body {
  if (WORLD_ROUTES.test(req.url))
    throw new ApiError(
      415,
      'invalid_request_error',
      'unsupported_media_type',
      'body: a world-model route takes its images and goal as JSON or as multipart/form-data files named "images" and "goal"',
      'body',
    );
  const kind = mediaKind(String(req.headers['content-type']));
  const body = queryFields(req);
  if ('input' in body) throw badField('input', 'is the body itself here; leave it out of the query string', 'duplicate_field');
  body.input = { [kind]: bytes };
  return body;
}

/** multipart/form-data: files named input (any number), images (any number) or goal (one); text fields as in the query string. */
function formBody(req: FastifyRequest, payload: NodeJS.ReadableStream, limit: number, maxItems: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      reject(tooLarge());
      return;
    }
    let busboy: BusboyInstance;
    try {
      busboy = Busboy({
        headers: req.headers as { 'content-type': string },
        limits: { fileSize: limit, fieldSize: limit, files: maxItems + 1, fields: 64, parts: maxItems + 65 },
      });
    } catch (err) {
      reject(badField('body', `not multipart/form-data (${(err as Error).message})`, 'invalid_body'));
      return;
    }
    const body = queryFields(req);
    const fromQuery = new Set(Object.keys(body));
    let failed: Error | null = null;
    let received = 0;
    let pending = 0;
    let finished = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = err;
      // the rest of the body is drained and dropped (linger.ts bounds that), not parsed
      payload.unpipe(busboy);
      payload.resume();
      reject(err);
    };
    const settle = () => {
      if (!failed && finished && pending === 0) resolve(body);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) fail(tooLarge());
    };
    payload.on('data', onData);
    busboy.on('file', (name, stream, filename, _encoding, mimeType) => {
      const chunks: Buffer[] = [];
      pending++;
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        pending--;
        if (failed) return;
        try {
          addFile(body, fromQuery, name, filename, mimeType, Buffer.concat(chunks));
          settle();
        } catch (err) {
          fail(err as Error);
        }
      });
    });
    busboy.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (failed) return;
      try {
        if (valueTruncated) throw tooLarge();
        if (name in body) throw badField(name, 'given twice (in the form, or in the form and the query string)', 'duplicate_field');
        body[name] = fieldValue(name, value);
      } catch (err) {
        fail(err as Error);
      }
    });
    busboy.on('filesLimit', () =>
      fail(badField('input', `more than ${maxItems} files; at most ${maxItems} per request (--max-queue)`, 'too_many_items')),
    );
    busboy.on('fieldsLimit', () => fail(badField('body', 'more than 64 text fields', 'invalid_body')));
    busboy.on('error', (err: unknown) => fail(badField('body', `malformed multipart/form-data (${(err as Error).message})`, 'invalid_body')));
    busboy.on('finish', () => {
      finished = true;
      settle();
    });
    payload.on('error', (err) => fail(err));
    payload.pipe(busboy);
  });
}

function addFile(body: Body, fromQuery: Set<string>, name: string, filename: string, mimeType: string, bytes: Buffer): void {
  const shape = ITEM_FIELDS[name];
  if (shape === undefined) throw badField(name, `a file in an unknown field (files go in ${Object.keys(ITEM_FIELDS).join(', ')})`, 'unknown_field');
  if (fromQuery.has(name)) throw badField(name, 'given twice (as a file and in the query string)', 'duplicate_field');
  if (bytes.length === 0) throw badField(name, `the file "${filename}" is empty`, 'invalid_item');
  const item = { [fileKind(name, filename, mimeType)]: bytes };
  if (shape === 'one') {
    if (name in body) throw badField(name, 'takes one file', 'duplicate_field');
    body[name] = item;
    return;
  }
  const list = body[name];
  if (list !== undefined && !Array.isArray(list)) throw badField(name, 'given as text and as a file', 'duplicate_field');
  body[name] = [...((list as unknown[] | undefined) ?? []), item];
}

/** image or video, by the part's type, else by its file name's extension. */
function fileKind(field: string, filename: string, mimeType: string): 'image' | 'video' {
  const type = mimeType.toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  const ext = extname(filename).toLowerCase();
  if (IMAGE_EXTENSIONS.has(ext)) return 'image';
  if (VIDEO_EXTENSIONS.has(ext)) return 'video';
  throw new ApiError(
    415,
    'invalid_request_error',
    'unsupported_media_type',
    `${field}: the file "${filename}" (${mimeType || 'no type'}) is neither an image nor a video; send it with Content-Type image/* or video/*`,
    field,
  );
}

function mediaKind(contentType: string): 'image' | 'video' {
  return contentType.toLowerCase().startsWith('video/') ? 'video' : 'image';
}

function queryFields(req: FastifyRequest): Body {
  const out: Body = {};
  for (const [key, value] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') throw badField(key, 'given more than once in the query string', 'duplicate_field');
    out[key] = fieldValue(key, value);
  }
  return out;
}

/**
 * A query or form field's text as the JSON value it stands for: true/false, a number, an array or an
 * object where it reads as one (top_k=5, normalize=true, include=["embedding"]), else the text itself;
 * `model` is always text.
 */
export function fieldValue(key: string, text: string): unknown {
  if (key === 'model') return text;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return Number(text);
  if (/^\s*[[{]/.test(text)) {
    if (jsonDepth(text) > MAX_JSON_DEPTH) throw badField(key, `nested deeper than ${MAX_JSON_DEPTH} levels`, 'invalid_json');
    try {
      return JSON.parse(text);
    } catch {
      throw badField(key, 'looks like JSON but does not parse', 'invalid_value');
    }
  }
  return text;
}

function tooLarge(): ApiError {
  return new ApiError(413, 'invalid_request_error', 'body_too_large', 'body: larger than the limit (--max-body-mb)', 'body');
}
