#!/usr/bin/env node
// jepa-bench: each command registers from its own file (commands/, or the folder of its bench).
import { Command } from 'commander';
import { registerHeadBenches } from './heads-bench.js';
import { registerTextBench } from './text-bench.js';
import { registerLewmBenches } from './lewm-bench.js';
import { registerAcBenches } from './ac-bench.js';
import { registerWindowsBench } from './windows-bench.js';
import { registerPcaBench } from './pca-bench.js';
import { registerFuzzEngine } from './fuzz/register.js';
import { registerSoak } from './soak/register.js';
import { registerBatchMemory } from './batch-memory/register.js';
import { registerBindingBench } from './commands/binding.js';
import { registerEncoderBench } from './commands/encoder.js';
import { registerLoadBench } from './commands/load.js';
import { registerPeersBench } from './commands/peers.js';
import { registerOrtProfileBench } from './commands/ort-profile.js';
import { registerReportBench } from './commands/report.js';
import { registerPipelineBench } from './commands/pipeline.js';
import { registerServeBench } from './commands/serve.js';
import { registerServeModelsBench } from './commands/serve-models.js';
import { registerStartupBench } from './commands/startup.js';
import { registerMcpBench } from './commands/mcp.js';
import { registerQueueBench } from './commands/queue.js';
import { registerAddonsBench } from './commands/addons.js';
import { registerCpuLevelsBench } from './commands/cpu-levels.js';
import { registerWidePanelsBench } from './commands/wide-panels.js';
import { registerRetrievalBench } from './commands/retrieval.js';
import { registerSearchBench } from './commands/search.js';
import { registerTextSearchBench } from './commands/text-search.js';
import { registerZeroShotBench } from './commands/zero-shot.js';
import { registerPullBench } from './commands/pull.js';

const program = new Command('jepa-bench').description('Benchmarks of the jepa engine (markdown and JSON reports)');

registerBindingBench(program);
registerEncoderBench(program);
registerLoadBench(program);
registerPeersBench(program);
registerOrtProfileBench(program);
registerReportBench(program);
registerHeadBenches(program);
registerTextBench(program);
registerPipelineBench(program);
registerServeBench(program);
registerServeModelsBench(program);
registerStartupBench(program);
registerMcpBench(program);
registerQueueBench(program);
registerAddonsBench(program);
registerCpuLevelsBench(program);
registerWidePanelsBench(program);
registerRetrievalBench(program);
registerSearchBench(program);
registerTextSearchBench(program);
registerZeroShotBench(program);
registerPullBench(program);
registerLewmBenches(program);
registerAcBenches(program);
registerWindowsBench(program);
registerPcaBench(program);
registerFuzzEngine(program);
registerSoak(program);
registerBatchMemory(program);

program.parseAsync().catch((err: unknown) => {
  process.stderr.write(`jepa-bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
