// `jepa features --pca`: the first three principal components of an input's patch features as an
// RGB map over the network's view of it, written as a PNG. The same featureMap as POST /v1/features
// and MCP (@jepa/engine's featureMap), on the PCA of @jepa/graph (packages/graph/src/pca.ts has the rule).
import { writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { Command } from 'commander';
import { featureMap } from '@jepa/engine';
import { openSession, type RuntimeFlags } from '../open-session.js';
import { addInputOptions, addSizeOption } from '../input-options.js';
import { addRuntimeOptions } from '../runtime-options.js';
import { UserError } from '../user-error.js';
import { localModel } from '../hub-model.js';
import { checkWritable } from '../output.js';
import { say } from '../display-text.js';
import { checkClipInput, clipInput, FRAMES_DIR_OPTION, type ClipFlags } from './clip-input.js';

interface FeaturesFlags extends RuntimeFlags, ClipFlags {
  model: string;
  pca?: boolean;
  output: string;
  view?: string;
  json?: boolean;
}

/** Refuses an output that is not a writable .png path, naming its flag. */
function checkPngOutput(path: string | undefined, flag: string): void {
  if (path === undefined) return;
  if (extname(path).toLowerCase() !== '.png') throw new UserError(`${flag} ${path}: write a .png file`);
  checkWritable(path, flag);
}

export function featuresCommand(program: Command): void {
  const cmd = program
    .command('features')
    .description("a picture of an input's patch features: --pca maps their first three principal components to RGB (a PNG)")
    .argument('[image]', 'an image (repeated to the trained frames on a video model)')
    .requiredOption('-m, --model <gguf>', 'the model')
    .option('--video <clip>', 'a video clip (ffmpeg decodes it)')
    .option('--frames-npy <file>', 'a clip as THWC uint8 .npy frames')
    .option(...FRAMES_DIR_OPTION)
    .option('--input-npy <file>', 'an already preprocessed float32 tensor [1,3,T,H,W] or [1,3,H,W]')
    .option('--pca', 'the PCA map (the one view so far; required)')
    .requiredOption('-o, --output <file.png>', 'where the map goes')
    .option('--view <file.png>', "also write the network's view of the input (de-normalised, frame 0 of a clip) at the map's size")
    .option('--json', 'print the size, grid and explained variance as JSON');
  addRuntimeOptions(cmd);
  addInputOptions(cmd);
  addSizeOption(cmd);
  cmd.action(async (image: string | undefined, flags: FeaturesFlags) => {
    if (!flags.pca) throw new UserError('say --pca: the PCA map is the one feature view so far');
    flags.model = await localModel(flags.model);
    checkClipInput(image, flags);
    checkPngOutput(flags.output, '-o');
    checkPngOutput(flags.view, '--view');
    const session = await openSession(flags.model, flags);
    try {
      const { label, input } = await clipInput(session, image, flags);
      if (input.shape[0] !== 1)
        throw new UserError(`--input-npy ${flags.inputNpy}: holds ${input.shape[0]} items; the map is of one (give [1,3,H,W] or [1,3,T,H,W])`);
      const t0 = performance.now();
      const out = await session.encoder.encode(input);
      const encodeMs = performance.now() - t0;
      const map = featureMap(session.spec, out, input.shape.slice(1), input.data);
      writeFileSync(flags.output, map.png);
      if (flags.view) writeFileSync(flags.view, map.view);
      const slices = map.grid.t > 1 ? `, ${map.grid.t} time slices averaged` : '';
      say(
        `${label}: PCA map ${map.width}x${map.height} (${map.grid.h}x${map.grid.w} patches${slices}) -> ${flags.output}; ` +
          `encode ${encodeMs.toFixed(0)} ms, PCA ${map.ms.toFixed(1)} ms`,
      );
      if (flags.json)
        process.stdout.write(
          `${JSON.stringify({ input: label, output: flags.output, width: map.width, height: map.height, grid: map.grid, explained_variance: map.explained })}\n`,
        );
    } finally {
      await session.dispose();
    }
  });
}
