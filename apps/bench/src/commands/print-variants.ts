// How `addons` and `cpu-levels` print their rows.
import type { VariantRow } from '../variants-bench.js';
import { variantsMarkdown } from '../variants-bench.js';
import { machineInfo } from '../machine.js';

/** The variants are the rows: this process's own addon and level say nothing about them. */
export function printVariants(rows: VariantRow[], threads: number, json?: boolean): void {
  const machine = machineInfo(threads);
  if (json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
  else
    process.stdout.write(
      `${machine.cpu}, ${machine.cores} cores, ${threads} threads; node ${machine.node}; ggml ${machine.ggml}\n\n${variantsMarkdown(rows)}\n`,
    );
}
