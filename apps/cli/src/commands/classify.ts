// `jepa classify`: encoder tokens -> the model's attentive classifier -> top-k labels; or, with --label / --labels,
// zero-shot classes of images with a dino.txt model (classify-labels.ts).
import type { Command } from 'commander';
import { openSession, type RuntimeFlags } from '../open-session.js';
import { addInputOptions, addSizeOption } from '../input-options.js';
import { addRuntimeOptions, positiveInt } from '../runtime-options.js';
import { UserError } from '../user-error.js';
import { localModel } from '../hub-model.js';
import { checkNpyOutput } from '../output.js';
import { checkClipInput, clipInput, FRAMES_DIR_OPTION, type ClipFlags } from './clip-input.js';
import { classifyWindows } from './classify-windows.js';
import { addWindowOptions, windowOptions, type WindowFlags } from '../window-options.js';
import { expandInputs } from '../inputs.js';
import { classifyByLabels } from './classify-labels.js';
import { printClassRows, writeScores } from './class-output.js';
import { collect, textList } from './text-list.js';

interface ClassifyFlags extends RuntimeFlags, ClipFlags, WindowFlags {
  model: string;
  topk: number;
  json?: boolean;
  timeline?: boolean;
  logits?: string;
  label?: string[];
  labels?: string;
}

export function classifyCommand(program: Command): void {
  const cmd = program
    .command('classify')
    .description("top-k classes of a clip (or image) with the model's attentive classifier head")
    .argument('[images...]', 'an image (repeated to the trained frames on a video model); with --label, images, folders or globs')
    .requiredOption('-m, --model <gguf>', 'a model with a head (jepa.head.kind), or a dino.txt model with --label')
    .option('--label <text>', 'zero-shot: a class named in words (repeatable; needs a dino.txt model)', collect)
    .option('--labels <file>', 'zero-shot: classes named in words, one per line (after any --label)')
    .option('--video <clip>', 'a video clip (ffmpeg decodes it)')
    .option('--frames-npy <file>', 'a clip as THWC uint8 .npy frames')
    .option(...FRAMES_DIR_OPTION)
    .option('--input-npy <file>', 'an already preprocessed float32 tensor [B,3,T,H,W] or [B,3,H,W]')
    .option('-k, --topk <k>', 'classes to show', positiveInt, 5)
    .option('--json', 'print JSON instead of a table')
    .option('--logits <file.npy>', 'also write the raw logits [B, classes] (zero-shot: the scores exp(logit_scale)·cos, one column per label)')
    .option('--timeline', 'with window options: one compact line per window, its top-1 class and score');
  addRuntimeOptions(cmd);
  addInputOptions(cmd);
  addSizeOption(cmd);
  addWindowOptions(cmd);
  cmd.action(async (images: string[], flags: ClassifyFlags) => {
    flags.model = await localModel(flags.model);
    if (flags.label !== undefined || flags.labels !== undefined) {
      const labels = textList(flags.label, flags.labels, '--labels');
      if (labels.length === 0) throw new UserError(`--labels ${flags.labels}: no label lines`);
      if (flags.video || flags.framesNpy || flags.framesDir || flags.inputNpy || windowOptions(flags) || flags.timeline)
        throw new UserError('--label classifies images; give image files, folders or globs');
      const files = expandInputs(images);
      if (files.length === 0) throw new UserError('nothing to classify: give images');
      checkNpyOutput(flags.logits, '--logits');
      const session = await openSession(flags.model, flags);
      try {
        await classifyByLabels(session, files, labels, flags);
      } finally {
        await session.dispose();
      }
      return;
    }
    if (images.length > 1) throw new UserError(`the classifier head takes one image or clip per call, not ${images.length}`);
    const image = images[0];
    checkClipInput(image, flags);
    checkNpyOutput(flags.logits, '--logits');
    const windows = windowOptions(flags);
    if (windows && !flags.video) throw new UserError('--fps/--frames/--window-seconds/--stride/--start/--end sample a --video clip');
    if (flags.timeline && !windows)
      throw new UserError('--timeline needs window options (--fps, --frames, --window-seconds, --stride, --start or --end)');
    if (windows && flags.logits) throw new UserError('--logits writes one clip; with window options use --json for every window');
    const session = await openSession(flags.model, flags);
    try {
      const headSpec = session.spec.head;
      if (!headSpec) throw new UserError(`${flags.model} has no classifier head`);
      const head = session.head();
      if (windows) {
        await classifyWindows(session.input, flags.video!, windows, session.encoder, head, {
          topk: flags.topk,
          json: flags.json === true,
          timeline: flags.timeline === true,
          batch: Math.min(4, flags.batch ?? 4),
        });
        return;
      }
      const { label, input } = await clipInput(session, image, flags);
      const results = await head.classify(await session.encoder.encode(input), flags.topk);
      if (flags.logits)
        writeScores(
          flags.logits,
          results.map((r) => r.logits),
          headSpec.nClasses,
          'logits',
        );
      const rows = results.map((r, i) => ({ input: results.length > 1 ? `${label}[${i}]` : label, top: r.top }));
      printClassRows(rows, flags.json === true, { score: 'logit', index: 'class' });
    } finally {
      await session.dispose();
    }
  });
}
