import type { Command } from 'commander';
import { extname } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { writeNpy } from '@jepa/preprocess';
import { ModelInput } from '@jepa/input';
import { addInputOptions, addSizeOption, inputOptions, type InputFlags } from '../input-options.js';
import { aboutFile, checkInputFile } from '../user-error.js';
import { localModel } from '../hub-model.js';
import { checkNpyOutput } from '../output.js';
import { say } from '../display-text.js';

const VIDEO_EXTENSIONS = new Set(['.mp4', '.webm', '.mkv', '.mov', '.avi', '.m4v']);

export function preprocessCommand(program: Command): void {
  const cmd = program
    .command('preprocess')
    .description("dump the exact network input the model's recipe makes of an image, clip or .npy frames")
    .requiredOption('-m, --model <gguf>', 'the model (its jepa.pre.* recipe)')
    .argument('<input>', 'an image, a video clip, or THWC uint8 frames (.npy)')
    .requiredOption('-o, --output <file.npy>', 'where to write the float32 tensor [1,3,H,W] or [1,3,T,H,W]');
  addInputOptions(cmd);
  addSizeOption(cmd);
  cmd.action(async (path: string, flags: InputFlags & { model: string; output: string }) => {
    flags.model = await localModel(flags.model);
    checkInputFile(path);
    checkNpyOutput(flags.output, '-o');
    const spec = aboutFile(`-m ${flags.model}`, flags.model, () => loadModelSpec(flags.model));
    const input = new ModelInput(spec, inputOptions(flags, say));
    const ext = extname(path).toLowerCase();
    const t = ext === '.npy' ? await input.framesNpy(path) : VIDEO_EXTENSIONS.has(ext) ? await input.video(path) : await input.image(path);
    writeNpy(flags.output, t.data, [1, ...t.shape]);
    say(`wrote [1, ${t.shape.join(', ')}] to ${flags.output}`);
  });
}
