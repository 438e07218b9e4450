// `jepa-bench soak`: jepa serve under mixed traffic and faults for --seconds; exit 1 on a violation.
import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { forgeModel } from '@jepa/gguf';
import { count, int } from '../cli-args.js';
import { machineInfo } from '../machine.js';

interface SoakOpts {
  seconds: number;
  model?: string;
  clients: number;
  maxQueue: number;
  slow: number;
  threads: number;
  healthP99Ms: number;
  rssGrowthMib: number;
  fdGrowth: number;
  slowCloseS: number;
  serverNodeOptions?: string;
  json?: string;
}

export function registerSoak(program: Command): void {
  program
    .command('soak')
    .description(
      'jepa serve on loopback for --seconds under mixed traffic (embeddings of images and clips, classify, predict, features, bad requests) with slowloris clients, disconnects mid-request and mid-response, bursts at 10x the queue and SIGTERM with work in flight; exit 1 on a 5xx other than 503/504, /health p99, fd growth or RSS growth after warm-up past its bound, or a shutdown that drops work',
    )
    .option('--seconds <n>', 'how long the traffic runs', int, 60)
    .option('-m, --model <gguf>', 'the model to serve (default: a tiny forged V-JEPA 2 with a head and a predictor)')
    .option('--clients <n>', 'clients sending requests back to back', int, 6)
    .option('--max-queue <n>', "the server's --max-queue (bursts send 10x this)", int, 16)
    .option('--slow <n>', 'slowloris sockets held open at once', count, 16)
    .option('-t, --threads <n>', "the server's threads", int, 2)
    .option('--health-p99-ms <n>', 'bound on /health p99', int, 1000)
    .option('--rss-growth-mib <n>', "bound on the server's RSS growth from the warm sample (a quarter in) to the end", int, 128)
    .option('--fd-growth <n>', "bound on the server's open-fd growth from start to end", count, 16)
    .option('--slow-close-s <n>', 'bound on how long the server lets a slowloris socket live (its request timeout is 20 s)', int, 30)
    .option('--server-node-options <flags>', "NODE_OPTIONS for the server only, e.g. '--max-semi-space-size=16' (the bench's clients keep their own)")
    .option('--json <file>', 'also write the report as JSON')
    .action(async (o: SoakOpts) => {
      const { runSoak, soakMarkdown } = await import('./soak-bench.js');
      const model = o.model
        ? resolve(process.env.INIT_CWD ?? process.cwd(), o.model)
        : forgeModel('vjepa2', { path: join(mkdtempSync(join(tmpdir(), 'jepa-soak-')), 'soak-vjepa2.gguf') }).path;
      const cli = resolve(import.meta.dirname, '../../../cli/dist/main.js');
      const report = await runSoak(
        {
          cli,
          model,
          seconds: o.seconds,
          clients: o.clients,
          maxQueue: o.maxQueue,
          slowClients: o.slow,
          threads: o.threads,
          healthP99Ms: o.healthP99Ms,
          rssGrowthMib: o.rssGrowthMib,
          fdGrowth: o.fdGrowth,
          slowCloseS: o.slowCloseS,
          ...(o.serverNodeOptions === undefined ? {} : { serverNodeOptions: o.serverNodeOptions }),
        },
        (s) => process.stderr.write(`${s}\n`),
      );
      const machine = machineInfo(o.threads);
      process.stdout.write(`${machine.summary}\n\n${soakMarkdown(report)}\n`);
      if (o.json) writeFileSync(o.json, `${JSON.stringify({ machine, report }, null, 2)}\n`);
      process.exitCode = report.violations.length > 0 ? 1 : 0;
    });
}
