// `jepa-bench search`.
import type { Command } from 'commander';
import { machineInfo } from '../machine.js';
import { count, int, intList } from '../cli-args.js';

export function registerSearchBench(program: Command): void {
  program
    .command('search')
    .description(
      '@jepa/search on synthetic unit vectors: commit and graph build time, size on disk, query p50/p99, recall@k of the approximate index against exact search',
    )
    .option('--sizes <list>', 'collection sizes, comma separated', intList, [10_000, 100_000, 1_000_000])
    .option('--dim <n>', 'vector width', int, 768)
    .option('--vectors <kind>', 'random (uniform on the sphere) or lowrank (a 32-d latent in D, plus noise)', 'lowrank')
    .option('-k, --top <n>', 'k', int, 10)
    .option('--queries <n>', 'queries timed and scored', int, 100)
    .option('--exact-queries <n>', 'exact searches timed (each reads every row)', count, 5)
    .option('--connectivity <n>', 'HNSW M', int)
    .option('--expansion-add <n>', 'HNSW efConstruction', int)
    .option('--expansion-search <list>', 'HNSW ef at search time, comma separated: each measured on the one graph', intList)
    .option('--scalar <kind>', "the graph's copy of the vectors: f32, f16 or i8 (default: the index's, i8)")
    .option('--threads <n>', 'graph build threads (0: usearch picks)', count, 0)
    .option('--dir <dir>', 'where the temporary indexes go (default: the system temp folder)')
    .option('--json <file>', 'also write the rows as JSON')
    .action(
      async (o: {
        sizes: number[];
        dim: number;
        vectors: string;
        top: number;
        queries: number;
        exactQueries: number;
        connectivity?: number;
        expansionAdd?: number;
        expansionSearch?: number[];
        scalar?: string;
        threads: number;
        dir?: string;
        json?: string;
      }) => {
        if (o.vectors !== 'random' && o.vectors !== 'lowrank') throw new Error(`--vectors must be random or lowrank, got '${o.vectors}'`);
        const { DEFAULT_APPROX, GRAPH_SCALARS, runSearchBench, searchMarkdown } = await import('../search-bench.js');
        const scalar = GRAPH_SCALARS.find((s) => s === (o.scalar ?? DEFAULT_APPROX.scalar));
        if (!scalar) throw new Error(`--scalar must be one of ${GRAPH_SCALARS.join(', ')}, got '${o.scalar}'`);
        const approx = {
          connectivity: o.connectivity ?? DEFAULT_APPROX.connectivity,
          expansionAdd: o.expansionAdd ?? DEFAULT_APPROX.expansionAdd,
          expansionSearch: o.expansionSearch?.[0] ?? DEFAULT_APPROX.expansionSearch,
          threads: o.threads,
          scalar,
        };
        const rows = runSearchBench(
          {
            sizes: o.sizes,
            dim: o.dim,
            kind: o.vectors,
            k: o.top,
            queries: o.queries,
            exactQueries: o.exactQueries,
            approx,
            ...(o.expansionSearch ? { efs: o.expansionSearch } : {}),
            ...(o.dir ? { dir: o.dir } : {}),
          },
          (s) => process.stderr.write(`${s}\n`),
        );
        const machine = machineInfo(o.threads);
        process.stdout.write(
          `${machine.summary}\nHNSW M=${approx.connectivity} efConstruction=${approx.expansionAdd} graph vectors ${approx.scalar}\n\n${searchMarkdown(rows, o.top)}\n`,
        );
        if (o.json) {
          const { writeFileSync } = await import('node:fs');
          writeFileSync(o.json, `${JSON.stringify({ machine, rows }, null, 2)}\n`);
        }
      },
    );
}
