// `jepa compare A.npy B.npy`: the parity judge's verdict on A against the reference B, token by
// token (each row along the last axis). Exit 0: pass; 3: compared and failed; 2: cannot compare.
import type { Command } from 'commander';
import { checkSameShape, FAILED_VERDICT, policyRowOf, readFloatArray, tokenVerdict, verdictJson } from '../parity-verdict.js';
import { UserError } from '../user-error.js';

interface CompareFlags {
  tier: string;
  json?: boolean;
}

export function compareCommand(program: Command): void {
  program
    .command('compare')
    .description("the parity judge's verdict on A against the reference B: cosine per token (worst, median), rel_max against REL(N)")
    .argument('<a>', 'the .npy under test (float32; each row along the last axis is a token)')
    .argument('<b>', 'the reference .npy, of the same shape')
    .option('--tier <row>', 'the bars: a tier (f32, f16, q8, q8-row, low-bit: the CPU image row) or BACKEND/CLASS/TIER such as gpu/video/f16', 'f32')
    .option('--json', 'print the verdict as one JSON object')
    .addHelpText('after', '\nExit status: 0 pass, 3 compared and failed the bars, 2 cannot compare (a missing file, not float32, shapes differ).')
    .action((a: string, b: string, flags: CompareFlags) => {
      const row = policyRowOf(flags.tier, '--tier');
      const actual = readFloatArray(a, a);
      const expected = readFloatArray(b, b);
      checkSameShape(actual.shape, expected.shape, `${a} against ${b}`);
      const verdict = tokenVerdict(row, actual.data, expected.data, actual.shape);
      process.stdout.write(flags.json ? `${JSON.stringify(verdictJson(verdict, actual.shape))}\n` : `${verdict.summary}\n`);
      if (!verdict.pass) throw new UserError(`${a} against ${b}: outside the ${row.backend}/${row.familyClass}/${row.tier} bars`, FAILED_VERDICT);
    });
}
