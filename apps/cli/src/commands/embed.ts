import type { Command } from 'commander';
import { ModelInput, type VideoWindowSource } from '@jepa/input';
import { loadModelSpec } from '@jepa/gguf';
import { readNpy } from '@jepa/preprocess';
import { EmbeddingWriter, embedCorpus, resumableEntries, type CorpusItem, type Pool } from '@jepa/corpus';
import type { ModelSession } from '@jepa/session';
import { frameFiles, frameFolderClip } from '../frame-folder.js';
import { expandInputs } from '../inputs.js';
import { openSession, type RuntimeFlags } from '../open-session.js';
import { inputOptions, refuseSizeOfTensor, type InputFlags } from '../input-options.js';
import { checkOutputWritable } from '../output.js';
import { normalizeOption } from '../normalize-option.js';
import { poolOption, resolvePool } from '../pool-option.js';
import { Progress } from '../progress.js';
import { aboutFile, checkInputFile, UserError } from '../user-error.js';
import { localModel } from '../hub-model.js';
import { say } from '../display-text.js';
import { addRuntimeOptions } from '../runtime-options.js';
import { addInputOptions, addSizeOption } from '../input-options.js';
import { addWindowOptions, windowOptions, type WindowFlags } from '../window-options.js';
import { windowItems } from './window-items.js';
import { checkDumpInputs, writeStageDump } from './stage-dump.js';
import { positiveInt } from '../runtime-options.js';
import { embedTexts } from './embed-text.js';
import { collect, textList } from './text-list.js';

interface EmbedFlags extends RuntimeFlags, InputFlags, WindowFlags {
  model: string;
  video?: string[];
  framesNpy?: string[];
  framesDir?: string[];
  inputNpy?: string;
  pool?: Pool;
  output?: string;
  resume?: boolean;
  dumpDir?: string;
  layers?: number;
  normalize?: boolean;
  text?: string[];
  texts?: string;
}

export function embedCommand(program: Command): void {
  const cmd = program
    .command('embed')
    .description('embed images, clips or preprocessed tensors')
    .argument('[images...]', 'image files, folders, globs or @list.txt files')
    .requiredOption('-m, --model <gguf>', 'the model')
    .option('--video <clips...>', 'video clips (ffmpeg decodes them)')
    .option('--frames-npy <files...>', 'clips as THWC uint8 .npy frames')
    .option('--frames-dir <dirs...>', 'clips as folders of frame images, in natural name order')
    .option('--input-npy <file>', 'an already preprocessed float32 tensor [B,3,H,W] or [B,3,T,H,W]')
    .option('--text <text>', "a text to embed with a dino.txt model's text tower (repeatable; one row each, in order)", collect)
    .option('--texts <file>', 'texts to embed, one per line (after any --text)')
    .addOption(poolOption())
    .addOption(normalizeOption())
    .option('-o, --output <file>', 'write .npy, .json or .jsonl as the inputs are embedded (default: JSON lines on stdout)')
    .option('--resume', 'continue an interrupted run of the same command: skip the inputs already in the output')
    .option('--dump-dir <dir>', 'also write each encoder stage of the one input as .npy (patch embed, every block, final norm) and index.json')
    .option('--layers <n>', "run only the encoder's first n blocks, then its final norm", positiveInt);
  addRuntimeOptions(cmd);
  addInputOptions(cmd);
  addSizeOption(cmd);
  addWindowOptions(cmd);
  cmd.action(async (images: string[], flags: EmbedFlags) => {
    checkOutputWritable(flags.output);
    if (flags.text !== undefined || flags.texts !== undefined) {
      const other = images.length > 0 || flags.video || flags.framesNpy || flags.framesDir || flags.inputNpy;
      if (other) throw new UserError('--text and --texts embed texts; embed images and clips in another call');
      for (const [given, name] of [
        [flags.resume, '--resume'],
        [flags.dumpDir, '--dump-dir'],
        [flags.layers, '--layers'],
        [flags.pool, '--pool'],
      ] as const)
        if (given !== undefined && given !== false) throw new UserError(`${name} applies to images and clips, not to --text`);
      const texts = textList(flags.text, flags.texts, '--texts');
      if (texts.length === 0) throw new UserError(`nothing to embed: ${flags.texts} has no text lines`);
      flags.model = await localModel(flags.model);
      await embedTexts(texts, flags);
      return;
    }
    if (flags.resume && !flags.output) throw new UserError('--resume needs -o: there is nothing to resume on stdout');
    const stills = expandInputs(images);
    const clips = [...(flags.video ?? []), ...(flags.framesNpy ?? []), ...(flags.framesDir ?? [])];
    if (stills.length + clips.length === 0 && !flags.inputNpy)
      throw new UserError('nothing to embed: give images, --video, --frames-npy, --frames-dir or --input-npy');
    for (const dir of flags.framesDir ?? []) frameFiles(dir);
    refuseSizeOfTensor(flags);
    // The items exist before the model, so that --resume can refuse another run's output at once.
    let session: ModelSession | undefined;
    const items: CorpusItem[] = [];
    const windows = windowOptions(flags);
    const sources: VideoWindowSource[] = [];
    for (const p of stills) items.push({ label: p, load: () => session!.input.image(p), still: true });
    if (windows) {
      if (flags.framesNpy || flags.framesDir || flags.inputNpy)
        throw new UserError(
          '--fps/--frames/--window-seconds/--stride/--start/--end sample --video clips; --frames-npy, --frames-dir and --input-npy are already frames',
        );
      flags.model = await localModel(flags.model);
      const spec = aboutFile(`-m ${flags.model}`, flags.model, () => loadModelSpec(flags.model));
      const maker = new ModelInput(spec, inputOptions(flags, say));
      for (const p of flags.video ?? []) {
        const { items: its, source } = await windowItems(maker, p, windows);
        items.push(...its);
        sources.push(source);
      }
    } else for (const p of flags.video ?? []) items.push({ label: p, load: () => session!.input.video(p), still: false });
    for (const p of flags.framesNpy ?? []) items.push({ label: p, load: () => session!.input.framesNpy(p), still: false });
    for (const p of flags.framesDir ?? []) items.push({ label: p, load: () => frameFolderClip(session!.input, p, say), still: false });
    if (flags.inputNpy) items.push(...tensorItems(flags.inputNpy));
    if (flags.resume) resumableEntries(flags.output!, items);
    if (flags.dumpDir !== undefined) checkDumpInputs(items, flags.dumpDir);
    if (flags.layers !== undefined) {
      flags.model = await localModel(flags.model);
      const header = aboutFile(`-m ${flags.model}`, flags.model, () => loadModelSpec(flags.model));
      if (flags.layers > header.enc.nLayer) throw new UserError(`--layers ${flags.layers}: ${header.name} has ${header.enc.nLayer} encoder blocks`);
    }
    const opened = await openSession(flags.model, flags, { encoder: flags.layers === undefined ? {} : { layers: flags.layers } });
    session = opened;
    const spec = opened.spec;
    const pool = resolvePool(spec, flags.pool);
    const writer = EmbeddingWriter.open(flags.output, items, { resume: flags.resume });
    if (writer.done > 0) say(`resuming: ${writer.done} of ${items.length} inputs are already in ${flags.output}`);
    say(`model: ${spec.name} (${spec.family}) on ${opened.device}`);
    const todo = items.slice(writer.done);
    const progress = new Progress(todo.length, 'embed');
    let embedded = 0;
    try {
      if (flags.dumpDir !== undefined)
        say(`${await writeStageDump(opened.encoder, items[0]!, flags.dumpDir, flags.model)} stages -> ${flags.dumpDir}`);
      for await (const records of embedCorpus(todo, { session: opened, pool, normalize: flags.normalize, batch: flags.batch })) {
        writer.write(records);
        for (const r of records) {
          if ('error' in r) say(`${r.item.label}: ${r.error} (skipped)`);
          else embedded++;
        }
        progress.tick(records.length);
      }
      writer.finish();
      for (const s of sources) if (s.warning) say(`warning: ${s.warning}`);
    } finally {
      for (const s of sources) await s.close();
      writer.close();
      await opened.dispose();
    }
    const { seconds, perSecond } = progress.finish();
    if (writer.rows === 0) throw new UserError(`nothing embedded: all ${items.length} inputs failed`, 3);
    const rate = embedded > 0 ? ` in ${seconds.toFixed(2)} s (${perSecond.toFixed(2)} items/s)` : '';
    const earlier = writer.done > 0 ? ` (${writer.rows - embedded} of them by the earlier run)` : '';
    say(`${writer.rows} embedded${earlier}${rate}${flags.output ? ` -> ${flags.output}` : ''}`);
    if (writer.failures.length > 0) throw new UserError(`${writer.failures.length} of ${items.length} inputs failed`, 3);
  });
}

function tensorItems(path: string): CorpusItem[] {
  checkInputFile(path, '--input-npy');
  const npy = readNpy(path);
  if (npy.dtype !== 'float32' || !(npy.shape.length === 4 || npy.shape.length === 5))
    throw new UserError(`--input-npy ${path}: expected float32 [B,3,H,W] or [B,3,T,H,W], got ${npy.dtype} [${npy.shape.join(', ')}]`);
  const [b, ...item] = npy.shape as number[];
  const size = item.reduce((x, y) => x * y, 1);
  const data = npy.data as Float32Array;
  return Array.from({ length: b! }, (_, i) => ({
    label: `${path}[${i}]`,
    source: path,
    load: async () => ({ data: data.subarray(i * size, (i + 1) * size), shape: item }),
    still: item.length === 3,
  }));
}
