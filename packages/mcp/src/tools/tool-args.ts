// The arguments and answers the tools share (zod), with the engine's field schemas where a route has them.
import { type ParsedItem, badField, modelField, normalizeField, parseSampling, poolField, samplingField, sizeField } from '@jepa/engine';
import { z } from 'zod';
import { MEDIA_KINDS } from '../media.js';

export const media = z
  .union([
    z.string(),
    z.object({
      path: z.string().optional().describe('an absolute path to a file under one of the roots'),
      data: z.string().optional().describe('the file as base64, or a data:<type>;base64,... URI'),
      kind: z.enum(MEDIA_KINDS).optional().describe('image, video, frames (uint8 [T,H,W,3] .npy) or tensor (preprocessed float32 .npy)'),
    }),
  ])
  .describe('a string (an absolute path under a root, or a data: URI) or {path} / {data} with an optional kind');

export const model = modelField.optional();
// one vector per item here: every token (pool none) is the HTTP route's
export const pool = poolField.exclude(['none']).optional();
export const normalize = normalizeField.optional();
export const size = sizeField.optional();
export const sampling = samplingField.optional();

const windowOut = {
  window: z.number().int(),
  start_s: z.number().describe('presentation time of the first frame'),
  end_s: z.number().describe('presentation time of the last frame'),
  frames: z.array(z.number().int()).describe('the decoded frames it took, in order'),
};

/** A tool's answer with sampling: one entry per window (its place, and `fields`), and the warnings of a cut-short decode. */
export function windowedOut(fields: z.ZodRawShape) {
  return {
    windows: z
      .array(z.object({ ...windowOut, ...fields }))
      .optional()
      .describe('with sampling: one per window, in order'),
    warnings: z.array(z.string()).optional().describe('one line when the decode ended before every window was complete'),
  };
}

/** A video argument with `sampling`: the server's item, a video whatever its name, with the sampling checked. */
export function sampledItem(item: ParsedItem, value: unknown): ParsedItem {
  const s = parseSampling(value, 'sampling');
  if (item.kind === 'path') {
    if (item.as !== null && item.as !== 'video') throw badField('video.kind', `"${item.as}" takes no sampling; sampling cuts a video into windows`);
    return { ...item, as: 'video', sampling: s };
  }
  if (item.kind !== 'video') throw badField('sampling', `a "${item.kind}" takes no sampling; sampling cuts a video into windows`);
  return { ...item, sampling: s };
}

export const embeddingOut = {
  model: z.string(),
  pool: z.string(),
  dims: z.number().int(),
  embedding: z.array(z.number()),
};

export const modelOut = z.object({
  id: z.string(),
  name: z.string(),
  family: z.string(),
  dims: z.number().int(),
  frames: z.number().int(),
  image_size: z.number().int(),
  labels: z.array(z.string()).nullable(),
  text: z.boolean().describe('takes words: embed_text, classify, search by text'),
  tools: z.array(z.string()),
});

export const hubModelOut = z.object({
  id: z.string().describe('hf:ORG/NAME'),
  state: z.enum(['unloaded', 'pulling']),
  downloaded: z.boolean().describe('every file the conversion reads is in the Hugging Face cache'),
  converted: z.boolean().describe("jepa's cache holds its GGUF"),
  family: z.string().nullable(),
});

export const scoreOut = z.object({ label: z.string(), index: z.number().int(), prob: z.number(), logit: z.number() });
