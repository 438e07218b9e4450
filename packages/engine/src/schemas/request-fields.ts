// The fields of each request shape, as zod schemas with their bounds and descriptions: one table for
// every front end. MCP's tools take these shapes as their input schemas; the HTTP routes read their
// bodies' fields with readFields. Defaults that depend on the model (top_k, horizon) are the engine's.
import { z } from 'zod';
import { POOLS } from '@jepa/session';

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

export const modelField = z.string().describe('the model id (GET /v1/models, list_models); may be left out when one model is loaded');

export const poolField = z
  .enum(POOLS)
  .describe(
    'mean of the patch tokens, the CLS token, every token (none), the LeWorldModel state, the vector the classifier head reads (pooler), or the vector in the text-aligned space of a dino.txt model (aligned); default aligned where the model has a text side, else cls where it has one, else mean',
  );

export const normalizeField = z.boolean().describe('L2-normalise each vector (default false)');

export const idsField = z
  .union([z.array(z.number().int().min(0)), z.string()])
  .describe('token ids: an array, or text like "0:16,20" (ids 0..15 and 20)');

/** The most pixels on a side a request's size may ask for. */
export const MAX_SIZE_SIDE = 8192;
const side = z.number().int().min(1).max(MAX_SIZE_SIDE);

export const sizeField = z
  .union([side, z.tuple([side, side])])
  .describe(
    "resize every image and frame straight to this size (one number: square; [height, width]: pixels), no crop, instead of the model's recipe; for encoders that run any patch grid (DINOv3 at 512 or 768)",
  );

export const embedFields = { pool: poolField, normalize: normalizeField, size: sizeField };

/** The most labels one zero-shot request may score. */
export const MAX_LABELS = 1000;

export const labelsField = z
  .array(z.string())
  .min(1)
  .max(MAX_LABELS)
  .describe('zero-shot classes: score each item against these words through the text side of a dino.txt model, instead of a classifier head');

export const textField = z.string().describe('words to search with (an index made by a dino.txt model)');

export const classifyFields = {
  top_k: z.number().int().min(1).describe("labels to return (default 5, at most the head's classes)"),
  logits: z.boolean().describe('also return every raw logit'),
  size: sizeField,
};

/** POST /v1/features: what else each item's one encode answers besides its map. */
export const featuresFields = {
  include: z
    .array(z.enum(['embedding', 'classes']))
    .describe("also return each item's embedding (pooled as /v1/embeddings pools it) and/or its top classes, from the same encode"),
  pool: poolField,
  normalize: normalizeField,
  top_k: classifyFields.top_k,
  size: sizeField,
};

export const predictFields = {
  context: idsField.describe('context token ids: an array, or text like "0:16"'),
  target: idsField.describe('target token ids: an array, or text like "16:32"'),
  mask_index: z.number().int().min(INT32.min).max(INT32.max).describe('mask token for the targets (default 1)'),
};

const seedField = z.number().int().min(INT32.min).max(INT32.max).describe('sampler seed (default 0)');
const horizonField = z.number().int().min(1).max(1024);
const actionStatsFields = {
  action_mean: z.array(z.number()).describe("with action_std: actions in raw units (the dataset's mean per action dimension)"),
  action_std: z.array(z.number()).describe("with action_mean: the dataset's standard deviation per action dimension"),
};

export const rolloutFields = {
  random_actions: z.number().int().min(1).max(4096).describe('roll out this many random normal action sequences instead of given ones'),
  horizon: horizonField.describe('steps of each random sequence (default 5)'),
  seed: seedField,
  ...actionStatsFields,
};

export const planFields = {
  horizon: horizonField.describe('steps to plan (default 5, at least the history)'),
  samples: z.number().int().min(2).max(4096).describe('candidates per CEM iteration (default 300)'),
  iterations: z.number().int().min(1).max(1000).describe('CEM iterations (default 30)'),
  top_k: z.number().int().min(2).max(4096).describe('elites per iteration (default min(30, samples), at most samples)'),
  seed: seedField,
  ...actionStatsFields,
};

/** The most frames one window may take: a window's clip is decoded and preprocessed whole. */
export const MAX_WINDOW_FRAMES = 128;

// loose: an unknown key reaches parseSampling, which names it in its refusal
export const samplingField = z
  .looseObject({
    fps: z.number().optional().describe('sample the video at this many frames per second of presentation time (default: every frame)'),
    frames: z.number().optional().describe(`frames per window, 1 to ${MAX_WINDOW_FRAMES} (default: the model's trained clip length)`),
    window_seconds: z
      .number()
      .optional()
      .describe('windows spanning this many seconds, the frames spread over each (default: windows of `frames` samples)'),
    stride: z.number().optional().describe('between window starts: samples, or seconds with window_seconds (default: the window length, no overlap)'),
    start: z.number().optional().describe('from this presentation time, in seconds'),
    end: z.number().optional().describe('up to (not including) this presentation time, in seconds'),
  })
  .describe(
    'cut a long video into windows (one answer per window, with its place in the video) instead of sampling it as one clip; a truncated file answers its complete windows and a warning',
  );
