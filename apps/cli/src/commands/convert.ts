import { type Command, Option } from 'commander';
import { convertCheckpoint, defaultOutputName, META_ENCODER_ENTRIES, WEIGHT_DTYPES, type ConvertSummary, type WeightDtype } from '@jepa/convert';
import { say } from '../display-text.js';
import { Progress } from '../progress.js';
import { UserError } from '../user-error.js';

interface ConvertFlags {
  output?: string;
  dtype: WeightDtype;
  family?: string;
  allowUnmapped?: boolean;
  allowNonfinite?: boolean;
  nHead?: string;
  imgSize?: string;
  nFrames?: string;
  predNHead?: string;
  probe?: string;
  probeHeads?: string;
  backbone?: string;
  vocab?: string;
  textHeads?: string;
  entry?: string;
  acExtrinsics?: boolean;
  /** commander's `--no-predictor` / `--no-head`: false when given. */
  predictor: boolean;
  head: boolean;
  license?: string;
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UserError(`${flag} must be a positive integer, not '${value}'`);
  return n;
}

function report(s: ConvertSummary): void {
  const mib = (s.bytes / 2 ** 20).toFixed(1);
  say(`${s.family} from ${s.layout}${s.sourceEntry ? ` (entry '${s.sourceEntry}')` : ''}`);
  for (const note of s.notes) say(note);
  if (s.ignored.length > 0) say(`skipped by rule (unused by the model): ${s.ignored.length} tensors`);
  if (s.skippedUnmapped.length > 0) say(`skipped, no mapping (--allow-unmapped): ${s.skippedUnmapped.join(', ')}`);
  if (s.nonFinite.length > 0) {
    say(`written with NaN/Inf values (--allow-nonfinite): ${s.nonFinite.map((t) => `${t.tensor} (${t.count})`).join(', ')}`);
  }
  say(s.hparams.license ? `license ${s.hparams.license}` : 'no license recorded (--license sets one)');
  say(`${s.tensors} tensors, matmul weights ${s.dtype}, ${mib} MiB`);
  process.stdout.write(`${s.out}\n`);
}

export function convertCommand(program: Command): void {
  program
    .command('convert')
    .description('convert a safetensors / torch checkpoint (file or HF folder) to a jepa GGUF')
    .argument('<src>', 'checkpoint file or folder (config.json and preprocessor configs are read next to it)')
    .option('-o, --output <gguf>', 'output file (default: <src name>-<dtype>.gguf)')
    .addOption(new Option('--dtype <type>', 'type of the matmul weights').choices([...WEIGHT_DTYPES]).default('f32'))
    .option('--family <name>', 'family or mapping id, when detection is not enough')
    .option('--allow-unmapped', 'skip source tensors no rule maps instead of refusing')
    .option('--allow-nonfinite', 'write tensors holding NaN or Inf instead of refusing the checkpoint')
    .option('--n-head <n>', 'attention heads (Meta pickles record none)')
    .option('--img-size <px>', 'trained input side (Meta pickles that do not record it)')
    .option('--n-frames <n>', 'trained clip length (Meta pickles that do not record it)')
    .option(
      '--pred-n-head <n>',
      "predictor heads of a Meta pickle (V-JEPA 2 defaults to 12, V-JEPA 2-AC to 16, I-JEPA / V-JEPA to the encoder's; V-JEPA 2.1 needs it)",
    )
    .addOption(
      new Option('--entry <name>', "Meta pickle entry to take the encoder from (default: the layout's own choice)").choices([
        ...META_ENCODER_ENTRIES,
      ]),
    )
    .option('--ac-extrinsics', 'V-JEPA 2-AC: the predictor uses its camera-extrinsics token (the released model does not)')
    .option('--probe <file>', 'a Meta attentive-probe file to convert as the classifier head')
    .option('--probe-heads <n>', "the probe's heads when they differ from the encoder's")
    .option('--backbone <file>', 'dino.txt: the DINOv3 backbone .pth of the head-and-text file being converted')
    .option('--vocab <file>', "dino.txt: CLIP's BPE merges (default: bpe_simple_vocab_16e6.txt.gz beside the source)")
    .option('--text-heads <n>', "dino.txt: the text tower's heads (default its width / 64)")
    .option('--no-predictor', 'leave the predictor out (a predictor that cannot be mapped then does not stop the encoder)')
    .option('--no-head', 'leave the classifier head out')
    .option('--license <spdx>', "general.license to write (default: config.json's, else the family's release licence)")
    .action(async (src: string, flags: ConvertFlags) => {
      const out = flags.output ?? defaultOutputName(src, flags.dtype);
      let progress: Progress | undefined;
      const summary = await convertCheckpoint(src, out, {
        dtype: flags.dtype,
        family: flags.family,
        allowUnmapped: flags.allowUnmapped,
        allowNonfinite: flags.allowNonfinite,
        nHead: positiveInt(flags.nHead, '--n-head'),
        imgSize: positiveInt(flags.imgSize, '--img-size'),
        nFrames: positiveInt(flags.nFrames, '--n-frames'),
        predNHead: positiveInt(flags.predNHead, '--pred-n-head'),
        probe: flags.probe,
        probeHeads: positiveInt(flags.probeHeads, '--probe-heads'),
        backbone: flags.backbone,
        vocab: flags.vocab,
        textHeads: positiveInt(flags.textHeads, '--text-heads'),
        entry: flags.entry,
        acExtrinsics: flags.acExtrinsics,
        noPredictor: !flags.predictor,
        noHead: !flags.head,
        license: flags.license,
        onProgress: (p) => {
          progress ??= new Progress(p.count, 'convert');
          progress.tick();
        },
      });
      progress?.finish();
      report(summary);
    });
}
