// The MCP surface: the tools (zod input and output schemas), their answers (compact JSON text plus
// structuredContent), failures as isError results with one readable line, and the client's roots.
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  EngineError,
  type ParsedItem,
  badField,
  classifyFields,
  modelField,
  normalizeField,
  parseSampling,
  planFields,
  poolField,
  predictFields,
  samplingField,
} from '@jepa/engine';
import { isUserFacing } from '@jepa/errors';
import { z } from 'zod';
import type { McpTools } from './tools.js';
import { MEDIA_KINDS, mediaItem, type MediaArg } from './media.js';

const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

const media = z
  .union([
    z.string(),
    z.object({
      path: z.string().optional().describe('an absolute path to a file under one of the roots'),
      data: z.string().optional().describe('the file as base64, or a data:<type>;base64,... URI'),
      kind: z.enum(MEDIA_KINDS).optional().describe('image, video, frames (uint8 [T,H,W,3] .npy) or tensor (preprocessed float32 .npy)'),
    }),
  ])
  .describe('a string (an absolute path under a root, or a data: URI) or {path} / {data} with an optional kind');

const model = modelField.optional();
// one vector per item here: every token (pool none) is the HTTP route's
const pool = poolField.exclude(['none']).optional();
const normalize = normalizeField.optional();
const sampling = samplingField.optional();

const windowOut = {
  window: z.number().int(),
  start_s: z.number().describe('presentation time of the first frame'),
  end_s: z.number().describe('presentation time of the last frame'),
  frames: z.array(z.number().int()).describe('the decoded frames it took, in order'),
};
const warningsOut = z.array(z.string()).optional().describe('one line when the decode ended before every window was complete');

/** A video argument with `sampling`: the server's item, a video whatever its name, with the sampling checked. */
function sampledItem(item: ParsedItem, value: unknown): ParsedItem {
  const s = parseSampling(value, 'sampling');
  if (item.kind === 'path') {
    if (item.as !== null && item.as !== 'video') throw badField('video.kind', `"${item.as}" takes no sampling; sampling cuts a video into windows`);
    return { ...item, as: 'video', sampling: s };
  }
  if (item.kind !== 'video') throw badField('sampling', `a "${item.kind}" takes no sampling; sampling cuts a video into windows`);
  return { ...item, sampling: s };
}

const embeddingOut = {
  model: z.string(),
  pool: z.string(),
  dims: z.number().int(),
  embedding: z.array(z.number()),
};

const modelOut = z.object({
  id: z.string(),
  name: z.string(),
  family: z.string(),
  dims: z.number().int(),
  frames: z.number().int(),
  image_size: z.number().int(),
  labels: z.array(z.string()).nullable(),
  tools: z.array(z.string()),
});

const scoreOut = z.object({ label: z.string(), index: z.number().int(), prob: z.number(), logit: z.number() });

/** Compact JSON text and the same object as structuredContent. */
function answer(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** One readable line: the refusal's own message (it names the argument), or "internal error: …" (logged in full). */
export function failureLine(err: unknown, log: (line: string) => void): string {
  let message: string;
  if (err instanceof EngineError || isUserFacing(err)) message = err.message;
  else {
    const cause = err;
    log(`internal error: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`);
    message = `internal error: ${cause instanceof Error ? cause.message : String(cause)}`;
  }
  return message.replace('(GET /v1/models lists them)', '(list_models names them)').replace(/\s*[\r\n]+\s*/g, ' ');
}

export interface McpServerOptions {
  /** Where roots changes and internal errors are reported (never stdout). */
  log?: (line: string) => void;
}

/** An McpServer with jepa's tools over `engine`; connect it to a transport. */
export function createMcpServer(engine: McpTools, options: McpServerOptions = {}): McpServer {
  const log = options.log ?? (() => {});
  const server = new McpServer(
    { name: 'jepa', version },
    {
      capabilities: { tools: {} },
      instructions:
        'JEPA vision models: embed images and videos, compare them, classify clips, score latent predictions, plan with a LeWorldModel. Call list_models first. Media: an absolute path under the roots, a data: URI, or {"data": base64}.',
    },
  );

  // the client's roots replace --root: asked for once initialized, again on roots/list_changed; a
  // call that names a path waits for the answer in progress
  let rootsSync: Promise<void> = Promise.resolve();
  const syncRoots = () => {
    rootsSync = rootsSync.then(async () => {
      try {
        const { roots } = await server.server.listRoots();
        const r = await engine.roots.replace(roots.map((x) => x.uri));
        for (const line of r.refused) log(`root not used: ${line}`);
        if (r.applied) log(`roots (from the client): ${engine.roots.paths.join(', ')}`);
        else log("the client's roots hold no usable folder; the roots stay as they were");
      } catch (err) {
        log(`roots/list failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    return rootsSync;
  };
  server.server.oninitialized = () => {
    if (server.server.getClientCapabilities()?.roots) void syncRoots();
  };
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await syncRoots();
  });

  const max = engine.maxMediaBytes;
  const run = async (work: () => Promise<Record<string, unknown>>): Promise<CallToolResult> => {
    try {
      await rootsSync;
      return answer(await work());
    } catch (err) {
      return { content: [{ type: 'text', text: failureLine(err, log) }], isError: true };
    }
  };
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

  server.registerTool(
    'list_models',
    {
      title: 'List the models',
      description:
        "The loaded models: id, family, embedding width (dims), trained frames and image size, a head's labels, and the tools each serves.",
      inputSchema: {},
      outputSchema: { models: z.array(modelOut) },
      annotations: readOnly,
    },
    async () => run(async () => ({ models: await engine.models() })),
  );

  server.registerTool(
    'embed_image',
    {
      title: 'Embed an image',
      description:
        "The pooled embedding of an image (a video model gets the still repeated to its frames, as jepa embed does). Returns {model, pool, dims, embedding}: jepa serve's /v1/embeddings values.",
      inputSchema: { model, image: media, pool, normalize },
      outputSchema: embeddingOut,
      annotations: readOnly,
    },
    async (a, extra) =>
      run(() =>
        engine.embed(
          { model: a.model, item: mediaItem('image', a.image as MediaArg, max, 'image', 'image'), pool: a.pool, normalize: a.normalize },
          extra.signal,
        ),
      ),
  );

  server.registerTool(
    'embed_video',
    {
      title: 'Embed a video',
      description:
        "The pooled embedding of a video clip (ffmpeg samples the model's frames), or of .npy frames / a preprocessed tensor. Returns {model, pool, dims, embedding}. With sampling, a long video's windows: {model, pool, dims, windows: [{window, start_s, end_s, frames, embedding}], warnings?}.",
      inputSchema: { model, video: media, pool, normalize, sampling },
      outputSchema: {
        ...embeddingOut,
        embedding: embeddingOut.embedding.optional().describe('without sampling'),
        windows: z
          .array(z.object({ ...windowOut, embedding: z.array(z.number()) }))
          .optional()
          .describe('with sampling: one per window, in order'),
        warnings: warningsOut,
      },
      annotations: readOnly,
    },
    async (a, extra) =>
      run(() => {
        const item = mediaItem('video', a.video as MediaArg, max, 'video', 'video');
        const args = { model: a.model, pool: a.pool, normalize: a.normalize };
        if (a.sampling === undefined) return engine.embed({ ...args, item }, extra.signal);
        return engine.embedWindows({ ...args, item: sampledItem(item, a.sampling) }, extra.signal);
      }),
  );

  server.registerTool(
    'compare',
    {
      title: 'Compare media',
      description:
        'Cosine similarity of the pooled embeddings of each item to the query (images or videos, by extension or kind), and the items ranked by it (most similar first). One item: the similarity of two.',
      inputSchema: { model, query: media, items: z.array(media).min(1).max(255).describe('the items to set against the query'), pool },
      outputSchema: {
        model: z.string(),
        pool: z.string(),
        similarities: z.array(z.number()).describe("in the items' order"),
        ranking: z.array(z.object({ index: z.number().int(), similarity: z.number() })),
      },
      annotations: readOnly,
    },
    async (a, extra) =>
      run(() =>
        engine.compare(
          {
            model: a.model,
            query: mediaItem('query', a.query as MediaArg, max, 'image', null),
            items: a.items.map((m, i) => mediaItem(`items[${i}]`, m as MediaArg, max, 'image', null)),
            pool: a.pool,
          },
          extra.signal,
        ),
      ),
  );

  server.registerTool(
    'classify_video',
    {
      title: 'Classify a clip',
      description:
        "Top-k labels of a clip from the model's attentive classifier head; a still image is repeated to the model's frames, as jepa classify does. Returns {model, top: [{label, index, prob, logit}]}. With sampling, a long video's windows: {model, windows: [{window, start_s, end_s, frames, top}], warnings?}.",
      inputSchema: {
        model,
        video: media,
        top_k: classifyFields.top_k.optional(),
        logits: classifyFields.logits.optional(),
        sampling,
      },
      outputSchema: {
        model: z.string(),
        top: z.array(scoreOut).optional().describe('without sampling'),
        logits: z.array(z.number()).optional(),
        windows: z
          .array(z.object({ ...windowOut, top: z.array(scoreOut), logits: z.array(z.number()).optional() }))
          .optional()
          .describe('with sampling: one per window, in order'),
        warnings: warningsOut,
      },
      annotations: readOnly,
    },
    async (a, extra) =>
      run(() => {
        const item = mediaItem('video', a.video as MediaArg, max, 'video', null);
        const args = { model: a.model, topK: a.top_k, logits: a.logits };
        if (a.sampling === undefined) return engine.classify({ ...args, item }, extra.signal);
        return engine.classifyWindows({ ...args, item: sampledItem(item, a.sampling) }, extra.signal);
      }),
  );

  server.registerTool(
    'predict_latents',
    {
      title: 'Score latent predictions',
      description:
        "V-JEPA 2 masked predictor: from the encoder's tokens at the context ids, predict the tokens at the target ids, and return each prediction's cosine to the encoded token at that id (and their mean).",
      inputSchema: {
        model,
        media: media.describe('the clip (or image) to encode'),
        context: predictFields.context,
        target: predictFields.target,
        mask_index: predictFields.mask_index.optional(),
      },
      outputSchema: {
        model: z.string(),
        context_tokens: z.number().int(),
        target_ids: z.array(z.number().int()),
        dims: z.number().int(),
        cosines: z.array(z.number()).describe("one per target id, in the target's order"),
        mean_cosine: z.number(),
      },
      annotations: readOnly,
    },
    async (a, extra) =>
      run(() =>
        engine.predictLatents(
          {
            model: a.model,
            item: mediaItem('media', a.media as MediaArg, max, 'video', null),
            context: a.context,
            target: a.target,
            maskIndex: a.mask_index,
          },
          extra.signal,
        ),
      ),
  );

  server.registerTool(
    'search',
    {
      title: 'Search the index',
      description:
        'The rows of the index (jepa mcp --index DIR, filled by jepa index add) nearest a query image or clip, or a stored row, by cosine: {model, rows, results: [{id, path, score, window?, start_s?, end_s?}]}, best first; the rows jepa search --json gives.',
      inputSchema: {
        model,
        query: media.optional().describe('an image or a clip (with sampling: its first window)'),
        row: z.number().int().min(1).optional().describe("a stored row's id instead of a query (left out of the results)"),
        k: z.number().int().min(1).max(1000).optional().describe('how many results (default 10)'),
        exact: z.boolean().optional().describe('search every row (default: the approximate index from 50,000 rows)'),
        sampling,
      },
      outputSchema: {
        model: z.string().nullable(),
        rows: z.number().int(),
        results: z.array(
          z.object({
            id: z.number().int(),
            path: z.string(),
            score: z.number(),
            window: z.number().int().optional(),
            start_s: z.number().optional(),
            end_s: z.number().optional(),
          }),
        ),
      },
      annotations: readOnly,
    },
    async (a, extra) =>
      run(() => {
        const query = a.query === undefined ? undefined : mediaItem('query', a.query as MediaArg, max, 'image', null);
        const item = query !== undefined && a.sampling !== undefined ? sampledItem(query, a.sampling) : query;
        return engine.search({ model: a.model, item, row: a.row, k: a.k, exact: a.exact }, extra.signal);
      }),
  );

  server.registerTool(
    'plan',
    {
      title: 'Plan actions (LeWorldModel)',
      description:
        "CEM planning with a LeWorldModel: from the start image (or history frames, oldest first) toward the goal image, the planned action sequence [horizon][action_dim] and its cost (squared distance of its last predicted state to the goal's), with the best sample's cost per iteration.",
      inputSchema: {
        model,
        start: z.union([media, z.array(media).min(1).max(64)]).describe('the start image, or history frames oldest first'),
        goal: media.describe('the goal image'),
        horizon: planFields.horizon.optional(),
        samples: planFields.samples.optional(),
        iterations: planFields.iterations.optional(),
        top_k: planFields.top_k.optional(),
        seed: planFields.seed.optional(),
        action_mean: planFields.action_mean.optional(),
        action_std: planFields.action_std.optional(),
      },
      outputSchema: {
        model: z.string(),
        history: z.number().int(),
        horizon: z.number().int(),
        action_dim: z.number().int(),
        space: z.enum(['model', 'raw']),
        actions: z.array(z.array(z.number())),
        cost: z.number(),
        best_costs: z.array(z.number()),
      },
      annotations: readOnly,
    },
    async (a, extra) =>
      run(() => {
        const start = Array.isArray(a.start) ? a.start : [a.start];
        return engine.plan(
          {
            model: a.model,
            start: start.map((m, i) => mediaItem(Array.isArray(a.start) ? `start[${i}]` : 'start', m as MediaArg, max, 'image', 'image')),
            goal: mediaItem('goal', a.goal as MediaArg, max, 'image', 'image'),
            horizon: a.horizon,
            samples: a.samples,
            iterations: a.iterations,
            topK: a.top_k,
            seed: a.seed,
            actionMean: a.action_mean,
            actionStd: a.action_std,
          },
          extra.signal,
        );
      }),
  );

  return server;
}
