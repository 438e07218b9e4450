import type { Command } from 'commander';
import type { CachedModel } from '@jepa/hub';
import { printLines } from '../display-text.js';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function lines(models: CachedModel[]): string[] {
  const out: string[] = [];
  for (const m of models) {
    out.push(`hf:${m.repo}  ${mib(m.size)}${m.folder ? `  ${m.folder}` : ''}`);
    for (const r of m.revisions) {
      out.push(`  ${r.commit}${r.refs.length > 0 ? ` (${r.refs.join(', ')})` : ''}  ${mib(r.size)}`);
      for (const f of r.files) out.push(`    ${f.path}  ${mib(f.size)}`);
    }
    for (const c of m.converted) out.push(`  converted ${c.commit.slice(0, 12)} ${c.type} (convert ${c.converter})  ${mib(c.size)}  ${c.path}`);
  }
  return out;
}

export function modelsCommand(program: Command): void {
  const models = program
    .command('models')
    .description('list the Hugging Face models in the caches: repositories, revisions, files and sizes, and converted GGUFs')
    .option('--json', 'one JSON document')
    .action(async (flags: { json?: boolean }) => {
      const { hubSettings, listCachedModels } = await import('@jepa/hub');
      const listed = await listCachedModels(hubSettings());
      if (flags.json) process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
      else if (listed.length > 0) printLines(...lines(listed));
    });
  models
    .command('rm')
    .description('remove a repository (hf:ORG/NAME) or one revision of it (hf:ORG/NAME@REV) from both caches')
    .argument('<ref>', 'hf:ORG/NAME[@REVISION], or ORG/NAME')
    .action(async (ref: string) => {
      const { hubSettings, removeCached } = await import('@jepa/hub');
      printLines(...(await removeCached(ref, hubSettings())).map((p) => `removed ${p}`));
    });
}
