import type { Command } from 'commander';
import { DEFAULT_REVISION, DEFAULT_TYPE, MODEL_TYPES, referenceOf } from '@jepa/hub/reference';
import { pullWithProgress } from '../hub-model.js';

interface PullFlags {
  revision: string;
  type: string;
  quiet?: boolean;
}

export function pullCommand(program: Command): void {
  program
    .command('pull')
    .description('download a Hugging Face model repository (only what conversion reads) and convert it; prints the GGUF path')
    .argument('<repo>', 'ORG/NAME, as in facebook/dinov2-small')
    .option('--revision <rev>', 'a branch, tag or commit', DEFAULT_REVISION)
    .option('--type <type>', `type of the matmul weights (${MODEL_TYPES.join(', ')}: quantized from the f32 GGUF)`, DEFAULT_TYPE)
    .option('--quiet', 'no progress on stderr')
    .action(async (repo: string, flags: PullFlags) => {
      const pulled = await pullWithProgress(referenceOf(repo, flags.revision, flags.type), flags.quiet === true);
      process.stdout.write(`${pulled.gguf}\n`);
    });
}
