// `jepa embed --dump-dir DIR`: every stage of one input's encoder run as a .npy file, for holding a
// port against its reference stage by stage (CONTRIBUTING.md, "Debugging a port").
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusItem } from '@jepa/corpus';
import type { EncoderContext } from '@jepa/graph';
import { encodeNpy } from '@jepa/preprocess';
import { checkOutputFolder } from '../output.js';
import { UserError } from '../user-error.js';

/** Refuses anything but one input (one image, one clip, one item of --input-npy) before the model loads. */
export function checkDumpInputs(items: readonly CorpusItem[], dir: string): void {
  if (items.length !== 1)
    throw new UserError(`--dump-dir ${dir}: a dump takes one input (an image, a clip or a [1, ...] tensor); this run has ${items.length}`);
  checkOutputFolder(dir, '--dump-dir');
}

/** Encodes the item keeping every stage, and writes NN-<stage>.npy ([tokens, dim] each) and index.json. */
export async function writeStageDump(ctx: EncoderContext, item: CorpusItem, dir: string, model: string): Promise<number> {
  const tensor = await item.load();
  if (tensor === null) throw new UserError(`--dump-dir ${dir}: ${item.label} has no frames to encode`);
  const stages = await ctx.encodeStages({ data: tensor.data, shape: [1, ...tensor.shape] });
  mkdirSync(dir, { recursive: true });
  const width = Math.max(2, String(stages.length - 1).length);
  const files = stages.map((s, i) => {
    const file = `${String(i).padStart(width, '0')}-${s.name}.npy`;
    writeFileSync(join(dir, file), encodeNpy(s.data, [s.tokens, s.dim]));
    return { file, stage: s.name, shape: [s.tokens, s.dim] };
  });
  const index = { model, input: item.label, layers: ctx.layers, stages: files };
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  return files.length;
}
