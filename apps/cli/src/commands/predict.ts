// `jepa predict`: a masked predictor (V-JEPA 2 / 2.1, or I-JEPA / V-JEPA v1's pretraining one) on an
// image's or a clip's encoder tokens, context ids in, predicted target tokens out.
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { checkPredictorInputSize, contextOnlyTokens, predictorTokens } from '@jepa/graph';
import { encodeNpy } from '@jepa/preprocess';
import { openSession, type RuntimeFlags } from '../open-session.js';
import { addInputOptions, addSizeOption } from '../input-options.js';
import { addRuntimeOptions } from '../runtime-options.js';
import { UserError } from '../user-error.js';
import { localModel } from '../hub-model.js';
import { checkNpyOutput } from '../output.js';
import { say } from '../display-text.js';
import { checkClipInput, clipInput, FRAMES_DIR_OPTION, type ClipFlags } from './clip-input.js';

interface PredictFlags extends RuntimeFlags, ClipFlags {
  model: string;
  context: string;
  target: string;
  maskIndex?: number;
  contextOnly?: boolean;
  output?: string;
}

/** `a:b` (ids a..b-1), a single id, or several joined by commas. */
export function parseIdRanges(text: string, flag: string): number[] {
  const ids: number[] = [];
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^(\d+)(?::(\d+))?$/.exec(part);
    if (!m) throw new UserError(`${flag} ${text}: use a:b (ids a to b-1), single ids, or both joined by commas`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a + 1 : Number(m[2]);
    if (b <= a) throw new UserError(`${flag} ${part}: the range is empty`);
    for (let i = a; i < b; i++) ids.push(i);
  }
  if (ids.length === 0) throw new UserError(`${flag} names no token ids`);
  return ids;
}

const integer = (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n)) throw new InvalidArgumentError('expected an integer');
  return n;
};

export function predictCommand(program: Command): void {
  const cmd = program
    .command('predict')
    .description('predict the encoder tokens at target ids from the tokens at context ids (V-JEPA 2 / 2.1, I-JEPA, V-JEPA masked predictor)')
    .argument('[image]', 'an image (repeated to the trained frames on a video model)')
    .requiredOption('-m, --model <gguf>', 'a model with a masked predictor')
    .option('--video <clip>', 'a video clip (ffmpeg decodes it)')
    .option('--frames-npy <file>', 'a clip as THWC uint8 .npy frames')
    .option(...FRAMES_DIR_OPTION)
    .option('--input-npy <file>', 'an already preprocessed float32 tensor [1,3,T,H,W]')
    .requiredOption('--context <ids>', 'context token ids: a:b, single ids, comma-joined')
    .requiredOption('--target <ids>', 'target token ids: a:b, single ids, comma-joined')
    .option(
      '--mask-index <i>',
      "mask token for the targets (default 1, the reference's; released V-JEPA 2 files have only token 0 non-zero)",
      integer,
    )
    .option(
      '--context-only',
      "encode only the context tokens, as Meta's pretraining does (encoder(x, masks)); default: the whole input, then its context rows (as HF V-JEPA 2)",
    )
    .option('-o, --output <file.npy>', 'write the predictions [targets, out_dim]');
  addRuntimeOptions(cmd);
  addInputOptions(cmd);
  addSizeOption(cmd);
  cmd.action(async (image: string | undefined, flags: PredictFlags) => {
    flags.model = await localModel(flags.model);
    checkClipInput(image, flags);
    checkNpyOutput(flags.output, '-o');
    const contextIds = parseIdRanges(flags.context, '--context');
    const targetIds = parseIdRanges(flags.target, '--target');
    const session = await openSession(flags.model, flags);
    try {
      const spec = session.spec;
      if (spec.pred?.kind !== 'masked') throw new UserError(`${flags.model} has no masked predictor`);
      const { input } = await clipInput(session, image, flags);
      if (input.shape[0] !== 1) throw new UserError('predict takes one clip');
      checkPredictorInputSize(spec, input.shape);
      // V-JEPA 2.1 g/G predictors read the encoder's hierarchy levels concatenated, not its output
      const tokens = await session.predictorEncoder().encode(input, flags.contextOnly ? { keep: contextIds } : {});
      const predictor = session.predictor();
      const oneFrame = input.shape.length === 4 || input.shape[2] === 1;
      const out = await predictor.predict({
        ...(flags.contextOnly ? contextOnlyTokens(spec, input.shape, tokens, contextIds) : predictorTokens(tokens)),
        contextIds,
        targetIds,
        ...(flags.maskIndex !== undefined ? { maskIndex: flags.maskIndex } : {}),
        modality: oneFrame ? 'image' : 'video',
      });
      say(`${contextIds.length} context -> ${targetIds.length} target tokens of width ${out.outDim}`);
      if (flags.output) {
        writeFileSync(flags.output, encodeNpy(out.targets, [targetIds.length, out.outDim]));
        say(`predictions -> ${flags.output}`);
      } else {
        process.stdout.write(`${JSON.stringify({ targetIds, shape: [targetIds.length, out.outDim], predictions: Array.from(out.targets) })}\n`);
      }
    } finally {
      await session.dispose();
    }
  });
}
