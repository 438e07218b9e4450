import { Command, Option } from 'commander';
import type { EncoderContext, PoolMode } from '@jepa/graph';
import { WorldModel } from '@jepa/worldmodel';
import { ModelInput, prefetchInOrder, type ItemTensor } from '@jepa/input';
import { readNpy } from '@jepa/preprocess';
import { expandInputs } from '../inputs.js';
import { contextOptions, loadModel, type RuntimeFlags } from '../load-model.js';
import { inputOptions, type InputFlags } from '../input-options.js';
import { checkOutputWritable, outputFormat, writeEmbeddings, type EmbeddingRecord } from '../output.js';
import { Progress } from '../progress.js';
import { UserError } from '../user-error.js';
import { addRuntimeOptions } from '../runtime-options.js';
import { addInputOptions } from '../input-options.js';

interface EmbedFlags extends RuntimeFlags, InputFlags {
  model: string;
  video?: string[];
  framesNpy?: string[];
  inputNpy?: string;
  pool?: Pool;
  output?: string;
}

/** lewm: the LeWorldModel state, the projector applied to the CLS token. */
type Pool = PoolMode | 'none' | 'lewm';

interface Item {
  label: string;
  load: () => Promise<ItemTensor>;
  still: boolean;
}

const say = (message: string) => process.stderr.write(`jepa: ${message}\n`);

export function embedCommand(program: Command): void {
  const cmd = program
    .command('embed')
    .description('embed images, clips or preprocessed tensors')
    .argument('[images...]', 'image files, folders, globs or @list.txt files')
    .requiredOption('-m, --model <gguf>', 'the model')
    .option('--video <clips...>', 'video clips (ffmpeg decodes them)')
    .option('--frames-npy <files...>', 'clips as THWC uint8 .npy frames')
    .option('--input-npy <file>', 'an already preprocessed float32 tensor [B,3,H,W] or [B,3,T,H,W]')
    .addOption(new Option('--pool <mode>', 'mean of patch tokens, the CLS token, every token, or the LeWM state').choices(['mean', 'cls', 'none', 'lewm']))
    .option('-o, --output <file>', 'write .npy, .json or .jsonl (default: JSON lines on stdout)');
  addRuntimeOptions(cmd);
  addInputOptions(cmd);
  cmd.action(async (images: string[], flags: EmbedFlags) => {
    outputFormat(flags.output);
    checkOutputWritable(flags.output);
    const stills = expandInputs(images);
    const clips = [...(flags.video ?? []), ...(flags.framesNpy ?? [])];
    if (stills.length + clips.length === 0 && !flags.inputNpy)
      throw new UserError('nothing to embed: give images, --video, --frames-npy or --input-npy');
    const model = await loadModel(flags.model, flags);
    const spec = model.spec;
    const input = new ModelInput(spec, inputOptions(flags, say));
    const items: Item[] = [];
    for (const p of stills) items.push({ label: p, load: () => input.image(p), still: true });
    for (const p of flags.video ?? []) items.push({ label: p, load: () => input.video(p), still: false });
    for (const p of flags.framesNpy ?? []) items.push({ label: p, load: () => input.framesNpy(p), still: false });
    if (flags.inputNpy) items.push(...tensorItems(flags.inputNpy));

    const pool: Pool = flags.pool ?? (spec.enc.nCls > 0 ? 'cls' : 'mean');
    if (pool === 'cls' && spec.enc.nCls === 0) throw new UserError(`${spec.family} models have no CLS token; use --pool mean`);
    if (pool === 'lewm' && spec.pred?.kind !== 'action') throw new UserError(`--pool lewm needs a LeWorldModel file; this is ${spec.family}`);
    const world = pool === 'lewm' ? new WorldModel(model) : null;
    say(`model: ${spec.name} (${spec.family}) on ${model.device}`);
    const ctx = model.createContext(contextOptions(flags));
    const records: EmbeddingRecord[] = [];
    const failures: string[] = [];
    const progress = new Progress(items.length, 'embed');
    const batchSize = flags.batch ?? 32;
    let pending: { item: Item; tensor: ItemTensor }[] = [];

    const flush = async () => {
      if (pending.length === 0) return;
      const group = pending;
      pending = [];
      await encodeGroup(ctx, group, pool, records, world);
      progress.tick(group.length);
    };
    // Stills decode a batch and a little ahead while the current batch encodes. With clips among the
    // inputs everything runs 2 ahead (a clip tensor is megabytes): a clip decodes (ffmpeg) while the
    // one before it encodes. Order is the input order either way.
    const stillDepth = batchSize + 4;
    const queue = prefetchInOrder(items, (item) => item.load(), items.some((i) => !i.still) ? 2 : stillDepth);
    for await (const next of queue) {
      const { item } = next;
      if (!next.ok) {
        failures.push(item.label);
        say(`${item.label}: ${describeFailure(next.error)} (skipped)`);
        progress.tick();
        continue;
      }
      const tensor = next.value;
      if (pending.length > 0 && (pending[0]!.tensor.shape.join() !== tensor.shape.join() || !item.still)) await flush();
      pending.push({ item, tensor });
      if (!item.still || pending.length >= batchSize) await flush();
    }
    await flush();
    const { seconds, perSecond } = progress.finish();
    ctx.dispose();
    world?.dispose();
    model.dispose();
    if (records.length === 0) throw new UserError(`nothing embedded: all ${items.length} inputs failed`, 3);
    writeEmbeddings(flags.output, records);
    say(`${records.length} embedded in ${seconds.toFixed(2)} s (${perSecond.toFixed(2)} items/s)${flags.output ? ` -> ${flags.output}` : ''}`);
    if (failures.length > 0) throw new UserError(`${failures.length} of ${items.length} inputs failed`, 3);
  });
}

function describeFailure(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function tensorItems(path: string): Item[] {
  const npy = readNpy(path);
  if (npy.dtype !== 'float32' || !(npy.shape.length === 4 || npy.shape.length === 5))
    throw new UserError(`--input-npy ${path}: expected float32 [B,3,H,W] or [B,3,T,H,W], got ${npy.dtype} [${npy.shape.join(', ')}]`);
  const [b, ...item] = npy.shape as number[];
  const size = item.reduce((x, y) => x * y, 1);
  const data = npy.data as Float32Array;
  return Array.from({ length: b! }, (_, i) => ({
    label: `${path}[${i}]`,
    load: async () => ({ data: data.subarray(i * size, (i + 1) * size), shape: item }),
    still: item.length === 3,
  }));
}

async function encodeGroup(
  ctx: EncoderContext,
  group: { item: Item; tensor: ItemTensor }[],
  pool: Pool,
  records: EmbeddingRecord[],
  world: WorldModel | null,
) {
  const itemShape = group[0]!.tensor.shape;
  const size = group[0]!.tensor.data.length;
  const data = new Float32Array(group.length * size);
  group.forEach((g, i) => data.set(g.tensor.data, i * size));
  const input = { data, shape: [group.length, ...itemShape] };
  if (world) {
    const states = await world.encode(input);
    const dim = states.length / group.length;
    group.forEach((g, i) => records.push({ input: g.item.label, values: states.slice(i * dim, (i + 1) * dim), shape: [dim] }));
    return;
  }
  const out = await ctx.encode(input);
  const pooled = pool === 'none' || pool === 'lewm' ? null : out.pool(pool);
  group.forEach((g, i) => {
    if (pooled) records.push({ input: g.item.label, values: pooled.slice(i * out.dim, (i + 1) * out.dim), shape: [out.dim] });
    else records.push({ input: g.item.label, values: out.item(i).slice(), shape: [out.nTokens, out.dim] });
  });
}


