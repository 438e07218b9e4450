import type { Command } from 'commander';
import { extname } from 'node:path';
import { loadModelSpec } from '@jepa/gguf';
import { writeNpy } from '@jepa/preprocess';
import { ModelInput } from '@jepa/input';
import { addInputOptions, inputOptions, type InputFlags } from '../input-options.js';
import { UserError } from '../user-error.js';

const VIDEO_EXTENSIONS = new Set(['.mp4', '.webm', '.mkv', '.mov', '.avi', '.m4v']);

export function preprocessCommand(program: Command): void {
  const cmd = program
    .command('preprocess')
    .description("dump the exact network input the model's recipe makes of an image, clip or .npy frames")
    .requiredOption('-m, --model <gguf>', 'the model (its jepa.pre.* recipe)')
    .argument('<input>', 'an image, a video clip, or THWC uint8 frames (.npy)')
    .requiredOption('-o, --output <file.npy>', 'where to write the float32 tensor [1,3,H,W] or [1,3,T,H,W]');
  addInputOptions(cmd);
  cmd.action(async (path: string, flags: InputFlags & { model: string; output: string }) => {
    if (extname(flags.output).toLowerCase() !== '.npy') throw new UserError('-o must name a .npy file');
    const input = new ModelInput(loadModelSpec(flags.model), inputOptions(flags, (m) => process.stderr.write(`jepa: ${m}\n`)));
    const ext = extname(path).toLowerCase();
    const t = ext === '.npy' ? await input.framesNpy(path) : VIDEO_EXTENSIONS.has(ext) ? await input.video(path) : await input.image(path);
    writeNpy(flags.output, t.data, [1, ...t.shape]);
    process.stderr.write(`jepa: wrote [1, ${t.shape.join(', ')}] to ${flags.output}\n`);
  });
}
