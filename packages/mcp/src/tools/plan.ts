// `plan`: CEM planning toward a goal image with a LeWorldModel.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { planFields } from '@jepa/engine';
import { z } from 'zod';
import { mediaItem, type MediaArg } from '../media.js';
import { media, model } from './tool-args.js';
import { READ_ONLY, type ToolContext } from './tool-context.js';
import type { ParsedItem } from '@jepa/engine';
import type { McpTools } from '../mcp-tools.js';
import { callOf, type ModelArg } from './tool-answers.js';

export function registerPlan(server: McpServer, t: ToolContext): void {
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
      annotations: READ_ONLY,
    },
    async (a, extra) =>
      t.run(() => {
        const start = Array.isArray(a.start) ? a.start : [a.start];
        return planActions(
          t.engine,
          {
            model: a.model,
            start: start.map((m, i) => mediaItem(Array.isArray(a.start) ? `start[${i}]` : 'start', m as MediaArg, t.maxMediaBytes, 'image', 'image')),
            goal: mediaItem('goal', a.goal as MediaArg, t.maxMediaBytes, 'image', 'image'),
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
}

/**
 * As /v1/worldmodel/plan: CEM from the start frames toward the goal; then the cost of the planned
 * sequence itself (its rollout's last state against the goal's, in the model's action units).
 */
export function planActions(
  tools: McpTools,
  args: ModelArg & {
    start: readonly ParsedItem[];
    goal: ParsedItem;
    horizon?: number | undefined;
    samples?: number | undefined;
    iterations?: number | undefined;
    topK?: number | undefined;
    seed?: number | undefined;
    actionMean?: number[] | undefined;
    actionStd?: number[] | undefined;
  },
  signal?: AbortSignal,
) {
  return tools.call(args.model, async () => {
    const r = await tools.engine.plan(
      {
        model: args.model,
        images: args.start,
        imagesField: 'start',
        goal: args.goal,
        horizon: args.horizon,
        samples: args.samples,
        iterations: args.iterations,
        topK: args.topK,
        seed: args.seed,
        actionMean: args.actionMean,
        actionStd: args.actionStd,
        scorePlan: true,
      },
      callOf(signal),
    );
    const A = r.actionDim;
    return {
      model: r.model,
      history: r.history,
      horizon: r.horizon,
      action_dim: A,
      space: r.space,
      actions: Array.from({ length: r.horizon }, (_, t) => Array.from(r.actions.subarray(t * A, (t + 1) * A))),
      cost: r.cost!,
      best_costs: r.bestCosts,
    };
  });
}
