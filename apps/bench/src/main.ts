#!/usr/bin/env node
import { Command } from 'commander';
import { bindingReportMarkdown, runBindingBench } from './binding-bench.js';
import { machineInfo } from './machine.js';
import { encoderMarkdown, opsMarkdown, runEncoderBench } from './encoder-bench.js';
import { PRESETS } from './presets.js';
import { registerHeadBenches } from './heads-bench.js';
import { registerLewmBenches } from './lewm-bench.js';
import { registerAcBenches } from './ac-bench.js';
import { registerWindowsBench } from './windows-bench.js';
import { registerPcaBench } from './pca-bench.js';
import { PEER_NETS, peerNet } from './peers/peer-nets.js';
import { PEER_TYPES, peersMarkdown, runPeersBench } from './peers/peers-bench.js';
import { ortProfileMarkdown, runOrtProfile } from './peers/ort-profile.js';
import { pipelineMarkdown, runPipelineBench } from './pipeline/pipeline-bench.js';
import { writeReport } from './report.js';
import { runVariantsBench, type VariantRow, variantsMarkdown } from './variants-bench.js';
import { count, int, intList, list } from './cli-args.js';
import { cliBuilds } from './cli-builds.js';
import { runStartupBench, startupMarkdown } from './startup-bench.js';
import { registerFuzzEngine } from './fuzz/register.js';
import { registerSoak } from './soak/register.js';
import { registerBatchMemory } from './batch-memory/register.js';

/** The variants are the rows: this process's own addon and level say nothing about them. */
function printVariants(rows: VariantRow[], threads: number, json?: boolean): void {
  const machine = machineInfo(threads);
  if (json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
  else
    process.stdout.write(
      `${machine.cpu}, ${machine.cores} cores, ${threads} threads; node ${machine.node}; ggml ${machine.ggml}\n\n${variantsMarkdown(rows)}\n`,
    );
}

const program = new Command('jepa-bench').description('Benchmarks of the jepa engine (markdown and JSON reports)');

program
  .command('binding')
  .description('what the JS binding costs: graph building, and mul_mat against a C++ driver on the same ggml')
  .option('-t, --threads <n>', 'compute threads', int, 2)
  .option('-r, --repeat <n>', 'timed runs per measurement', int, 10)
  .option('-w, --warmup <n>', 'untimed runs first', count, 2)
  .option('--rounds <n>', 'alternations of binding and driver per row', int, 3)
  .option('--md', 'print a markdown table (the default)')
  .option('--json', 'print the report as JSON')
  .action(async (opts: { threads: number; repeat: number; warmup: number; rounds: number; json?: boolean }) => {
    const report = await runBindingBench(opts, (s) => process.stderr.write(`${s}\n`));
    const machine = machineInfo(opts.threads);
    if (opts.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
    else process.stdout.write(`${machine.summary}\n\n${bindingReportMarkdown(report)}\n`);
  });

program
  .command('encoder')
  .description('encoder ms per item on real-size models with random weights (forged once into --dir)')
  .option('-m, --models <list>', `presets (${Object.keys(PRESETS).join(', ')}) or .gguf files`, list, ['vit-b16'])
  .option('--dtype <list>', 'f32, f16, q8_0, q8_row, q4_k, q4_0 (quantized: the f32 preset through jepa-quantize)', list, ['f32'])
  .option('-t, --threads <list>', 'thread counts', intList, [2])
  .option('-b, --batch <list>', 'batch sizes (images or clips)', intList, [1])
  .option('--device <name>', 'cpu, cuda, cuda:N (Model.load)', 'cpu')
  .option('--size <list>', "input sizes in pixels (default: the preset's)", intList, [])
  .option('--frames <list>', "clip lengths for video presets (default: the preset's)", intList, [])
  .option('-r, --repeat <n>', 'timed runs', int, 5)
  .option('-w, --warmup <n>', 'untimed runs first', count, 1)
  .option('--no-flash', 'naive attention')
  .option('--profile', 'also run node by node and print the time per op')
  .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
  .option('--md', 'print a markdown table (the default)')
  .option('--json', 'print every sample as JSON')
  .action(
    async (o: {
      models: string[];
      dtype: string[];
      threads: number[];
      batch: number[];
      size: number[];
      frames: number[];
      repeat: number;
      warmup: number;
      flash: boolean;
      profile?: boolean;
      dir: string;
      device: string;
      json?: boolean;
    }) => {
      const rows = await runEncoderBench(
        {
          models: o.models,
          dtypes: o.dtype,
          threads: o.threads,
          batches: o.batch,
          sizes: o.size,
          frames: o.frames,
          repeat: o.repeat,
          warmup: o.warmup,
          dir: o.dir,
          noFlash: !o.flash,
          profile: o.profile ?? false,
          device: o.device,
        },
        (s) => process.stderr.write(`${s}\n`),
      );
      const machine = machineInfo(Math.max(...o.threads));
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
      else {
        const ops = opsMarkdown(rows);
        process.stdout.write(`${machine.summary}\n\n${encoderMarkdown(rows)}\n${ops ? `\n${ops}\n` : ''}`);
      }
    },
  );

program
  .command('load')
  .description('Model.load with and without the non-finite weight scan, and the scan alone (median ms), on real-size models with random weights')
  .option('-m, --models <list>', `presets (${Object.keys(PRESETS).join(', ')})`, list, ['vit-h14'])
  .option('--dtype <list>', 'f32, f16, q8_0, q8_row, q4_k, q4_0 (quantized: the f32 preset through jepa-quantize)', list, ['f32', 'q8_0'])
  .option('-t, --threads <n>', 'threads of Model.load and of the scan', int, 2)
  .option('-r, --repeat <n>', 'timed runs of each', int, 5)
  .option('-w, --warmup <n>', 'untimed runs of each first', count, 1)
  .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
  .option('--json', 'print every sample as JSON')
  .action(async (o: { models: string[]; dtype: string[]; threads: number; repeat: number; warmup: number; dir: string; json?: boolean }) => {
    const { runLoadBench, loadMarkdown } = await import('./load-bench.js');
    const rows = await runLoadBench({ models: o.models, dtypes: o.dtype, threads: o.threads, repeat: o.repeat, warmup: o.warmup, dir: o.dir }, (s) =>
      process.stderr.write(`${s}\n`),
    );
    const machine = machineInfo(o.threads);
    if (o.json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
    else process.stdout.write(`${machine.summary}\n\n${loadMarkdown(rows)}\n`);
  });

program
  .command('peers')
  .description('torchvision ViT-B/16 (or --net dinov3-s16, dinov3-b16) at 224: onnxruntime-node against this engine on the same weights')
  .option('-t, --threads <n>', 'threads for both', int, 2)
  .option('-w, --warmup <n>', 'untimed rounds first', count, 2)
  .option('--rounds <n>', 'timed rounds; each runs every runtime once, in a rotating order', int, 15)
  .option('--types <list>', 'engine weight types (jepa-quantize names)', list, PEER_TYPES)
  .option('--dir <path>', 'where the export and the GGUFs live', 'tmp/peers')
  .option('--batch <list>', 'images per call, each size a comparison of its own (e.g. 1,8,32)', list, ['1'])
  .option('--net <id>', `the network: ${PEER_NETS.map((n) => n.id).join(', ')}`, 'vit-b16')
  .option('--md', 'print a markdown table (the default)')
  .option('--json', 'print JSON')
  .action(
    async (o: { threads: number; warmup: number; rounds: number; types: string[]; dir: string; batch: string[]; net: string; json?: boolean }) => {
      const rows = [];
      const net = peerNet(o.net);
      for (const batch of o.batch.map(int)) rows.push(...(await runPeersBench({ ...o, batch, net }, (s) => process.stderr.write(`${s}\n`))));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, rows }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${peersMarkdown(rows)}\n`);
    },
  );

program
  .command('ort-profile')
  .description("onnxruntime-node's own profile of the peer ViT-B/16 (fp32 or --int8), summed per op type")
  .option('-t, --threads <n>', 'intra-op threads', int, 2)
  .option('-r, --runs <n>', 'profiled runs', int, 10)
  .option('-w, --warmup <n>', 'untimed runs first', count, 3)
  .option('--dir <path>', 'where the export lives', 'tmp/peers')
  .option('--int8', 'profile the int8 file transformers.js would ship (dynamic u8 activations, s8 weights)')
  .action(async (o: { threads: number; runs: number; warmup: number; dir: string; int8?: boolean }) => {
    const profile = await runOrtProfile(o, (s) => process.stderr.write(`${s}\n`));
    process.stdout.write(`${machineInfo(o.threads).summary}\n\n${ortProfileMarkdown(profile)}\n`);
  });

program
  .command('report')
  .description('run the standard sweep and write docs/benchmarks.md')
  .option('-t, --threads <n>', 'threads', int, 2)
  .option('-m, --models <list>', 'encoder presets', list, ['vit-ti14', 'vit-b16'])
  .option('-o, --out <file>', 'markdown output', 'docs/benchmarks.md')
  .action(async (o: { threads: number; models: string[]; out: string }) => {
    const command = `pnpm -s jepa-bench report ${process.argv.slice(3).join(' ')}`.trim();
    await writeReport({ ...o, command }, (s) => process.stderr.write(`${s}\n`));
  });

registerHeadBenches(program);
program
  .command('pipeline')
  .description('files to embeddings end to end (ViT-B/16, two photo sets): against the encoder alone, Pillow and transformers.js')
  .option('-t, --threads <n>', 'compute threads, for every runtime', int, 2)
  .option('-b, --batch <n>', 'images per graph, as jepa embed --batch', int, 32)
  .option('--types <list>', 'engine weight types', list, ['f32', 'q8_0'])
  .option('--rounds <n>', 'timed batches of the encoder alone', int, 3)
  .option('--no-tfjs', 'leave transformers.js out')
  .option('--no-rss', 'leave out the 100- against 1000-image memory run')
  .option('--fast-decode', "also jepa embed --fast-decode, and fast decode and Pillow's draft against their full decodes (time and pixels)")
  .option('--dir <path>', 'photo sets, transformers.js and outputs', 'tmp/pipeline')
  .option('--peers-dir <path>', 'where the ViT-B/16 export and GGUFs live (shared with peers)', 'tmp/peers')
  .option('--json', 'print JSON')
  .action(
    async (o: {
      threads: number;
      batch: number;
      types: string[];
      rounds: number;
      tfjs: boolean;
      rss: boolean;
      fastDecode?: boolean;
      dir: string;
      peersDir: string;
      json?: boolean;
    }) => {
      const report = await runPipelineBench({ ...o, fastDecode: o.fastDecode === true }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${pipelineMarkdown(report)}\n`);
    },
  );

program
  .command('serve')
  .description(
    'jepa serve under load (ViT-B/16 images on loopback): req/s, p50/p99 and graph sizes at each --max-batch x clients, beside the encoder alone at batch 8',
  )
  .option('-t, --threads <n>', 'server compute threads', int, 2)
  .option('-c, --clients <list>', 'concurrent clients', intList, [1, 8, 32])
  .option('--max-batch <list>', 'server --max-batch values', intList, [1, 8])
  .option('-n, --requests <n>', 'timed requests per row (per build and round with several --cli)', int, 128)
  .option('--seconds <s>', 'timed seconds per row instead of a count', int)
  .option('--type <type>', 'weight type (jepa-quantize names)', 'q8_0')
  .option('--size <px>', 'side of the PNG each request sends', int, 256)
  .option('--dir <path>', 'where the ViT-B/16 export and GGUFs live (shared with peers)', 'tmp/peers')
  .option('--cli <list>', "builds of the jepa CLI to serve, taking turns in each row (main.js paths; default this checkout's)", list)
  .option('--rounds <n>', 'turns of every build per row', int, 1)
  .option('--json', 'print JSON')
  .action(
    async (o: {
      threads: number;
      clients: number[];
      maxBatch: number[];
      requests: number;
      seconds?: number;
      type: string;
      size: number;
      dir: string;
      cli?: string[];
      rounds: number;
      json?: boolean;
    }) => {
      const { runServeBench, serveMarkdown } = await import('./serve-bench.js');
      const report = await runServeBench({ ...o, clis: cliBuilds(o.cli) }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${serveMarkdown(report)}\n`);
    },
  );

program
  .command('serve-models')
  .description(
    'jepa serve --models-dir (ViT-B/16 under two names): the first request to a cold model against a warm one, 32 clients over two models against one, VmRSS over load/unload cycles',
  )
  .option('-t, --threads <n>', 'server compute threads', int, 2)
  .option('--type <type>', 'weight type (jepa-quantize names)', 'q8_0')
  .option('--dir <path>', 'where the ViT-B/16 export and GGUFs live (shared with peers)', 'tmp/peers')
  .option('--repeats <n>', 'cold and warm first requests, each', int, 5)
  .option('-c, --clients <n>', 'concurrent clients of the throughput rows', int, 32)
  .option('-n, --requests <n>', 'timed requests per throughput row', int, 256)
  .option('--cycles <n>', 'load/unload cycles for the RSS row', int, 20)
  .option('--cli <path>', "the jepa CLI to serve (main.js; default this checkout's)")
  .option('--json', 'print JSON')
  .action(
    async (o: {
      threads: number;
      type: string;
      dir: string;
      repeats: number;
      clients: number;
      requests: number;
      cycles: number;
      cli?: string;
      json?: boolean;
    }) => {
      const { runServeModelsBench, serveModelsMarkdown } = await import('./serve-models-bench.js');
      const report = await runServeModelsBench({ ...o, cli: cliBuilds(o.cli ? [o.cli] : undefined)[0]! }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${serveModelsMarkdown(report, o.type)}\n`);
    },
  );

program
  .command('startup')
  .description('jepa from start to exit (--help, features --pca on the demo model): wall time, peak RSS and whether fastify loads, per CLI build')
  .option('--cli <list>', "builds of the jepa CLI, taking turns (main.js paths; default this checkout's)", list)
  .option('-m, --model <gguf>', 'the model features loads', 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf')
  .option('--image <file>', 'the image features maps', 'fixtures/preprocess/sample.jpg')
  .option('-t, --threads <n>', 'compute threads of features', int, 2)
  .option('-n, --runs <n>', 'timed runs per build and command', int, 10)
  .option('-w, --warmup <n>', 'untimed runs per build and command first', count, 1)
  .option('--json', 'print every sample as JSON')
  .action((o: { cli?: string[]; model: string; image: string; threads: number; runs: number; warmup: number; json?: boolean }) => {
    const report = runStartupBench({ ...o, clis: cliBuilds(o.cli) }, (s) => process.stderr.write(`${s}\n`));
    const machine = machineInfo(o.threads);
    if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
    else process.stdout.write(`${machine.summary}\n\n${startupMarkdown(report)}\n`);
  });

program
  .command('mcp')
  .description('jepa mcp as a client sees it: the embed_image round trip over stdio (p50 / p90), for a path and a data: URI')
  .option('-m, --model <gguf>', 'the model', 'fixtures/demo/jepa-demo-vjepa2-untrained.gguf')
  .option('--image <file>', 'the image (its folder is the root)', 'fixtures/preprocess/sample.jpg')
  .option('-n, --calls <n>', 'timed calls per row', int, 100)
  .option('-w, --warmup <n>', 'untimed calls first', count, 5)
  .option('-t, --threads <n>', 'server compute threads', int, 2)
  .option('--json', 'print JSON')
  .action(async (o: { model: string; image: string; calls: number; warmup: number; threads: number; json?: boolean }) => {
    const { runMcpBench, mcpMarkdown } = await import('./mcp-bench.js');
    const report = await runMcpBench(o, (s) => process.stderr.write(`${s}\n`));
    const machine = machineInfo(o.threads);
    if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
    else process.stdout.write(`${machine.summary}\n\n${mcpMarkdown(report)}\n`);
  });

program
  .command('queue')
  .description(
    'jepa embed against the same images through jepa queue + workers (a real redis-server): items/s side by side, and the overhead per job',
  )
  .option('-n, --images <n>', 'images in the corpus (1024-px JPEGs)', int, 1000)
  .option('-t, --threads <n>', 'threads of the one jepa embed, shared out among the workers', int, 2)
  .option('-w, --workers <n>', 'workers', int, 2)
  .option('-b, --batch <n>', 'inputs per job and per graph', int, 32)
  .option('--rounds <n>', 'alternating rounds of embed and queue', int, 1)
  .option('--overhead-batches <list>', 'batch sizes for the overhead per job', intList, [1, 8, 32])
  .option('--overhead-images <n>', 'images for each overhead row', int, 96)
  .option('--memory-images <list>', 'corpus sizes for jepa embed --pool none peak RSS (empty: skip)', intList, [100, 400])
  .option('--type <type>', 'weight type (jepa-quantize names)', 'f32')
  .option('--dir <path>', 'lists, shards and outputs', 'tmp/queue-bench')
  .option('--peers-dir <path>', 'where the ViT-B/16 export and GGUFs live (shared with peers)', 'tmp/peers')
  .option('--json', 'print JSON')
  .action(
    async (o: {
      images: number;
      threads: number;
      workers: number;
      batch: number;
      rounds: number;
      overheadBatches: number[];
      overheadImages: number;
      memoryImages: number[];
      type: string;
      dir: string;
      peersDir: string;
      json?: boolean;
    }) => {
      const { runQueueBench, queueMarkdown } = await import('./queue/queue-bench.js');
      const report = await runQueueBench(o, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      if (o.json) process.stdout.write(`${JSON.stringify({ machine, report }, null, 2)}\n`);
      else process.stdout.write(`${machine.summary}\n\n${queueMarkdown(report)}\n`);
    },
  );

program
  .command('addons')
  .description('the encoder under several builds of the addon (portable against -march=native), side by side in rotating rounds')
  .option('--addon <list>', 'the .node files to compare, the first is the baseline', list, [
    'native/build-native/Release/jepa_native.node',
    'native/build/Release/jepa_native.node',
  ])
  .option('-m, --models <list>', 'presets or .gguf files', list, ['vit-b16'])
  .option('--dtype <list>', 'weight types', list, ['f32', 'q8_0'])
  .option('-t, --threads <n>', 'compute threads', int, 2)
  .option('-r, --repeat <n>', 'timed runs per round', int, 5)
  .option('--rounds <n>', 'rounds; each runs every build once', int, 5)
  .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
  .option('--json', 'print JSON')
  .action(
    async (o: {
      addon: string[];
      models: string[];
      dtype: string[];
      threads: number;
      repeat: number;
      rounds: number;
      dir: string;
      json?: boolean;
    }) => {
      const { existsSync } = await import('node:fs');
      const { resolve } = await import('node:path');
      // JEPA_ADDON is handed to require(), which needs an absolute path
      const addons = o.addon.map((a) => resolve(a));
      for (const a of addons) if (!existsSync(a)) throw new Error(`no addon at ${a}`);
      const rows = await runVariantsBench(
        addons.map((a) => ({ label: a, env: { JEPA_ADDON: a } })),
        { models: o.models, dtypes: o.dtype, threads: o.threads, repeat: o.repeat, rounds: o.rounds, dir: o.dir },
        (s) => process.stderr.write(`${s}\n`),
      );
      printVariants(rows, o.threads, o.json);
    },
  );

program
  .command('cpu-levels')
  .description(
    "the encoder with this engine's CPU kernels at each level this CPU runs (JEPA_CPU), and ggml's own at the AVX2 level, in rotating rounds",
  )
  .option('-m, --models <list>', 'presets or .gguf files', list, ['vit-b16'])
  .option('--dtype <list>', 'weight types', list, ['f32', 'q8_0'])
  .option('-t, --threads <n>', 'compute threads', int, 2)
  .option('-r, --repeat <n>', 'timed runs per round', int, 5)
  .option('--rounds <n>', 'rounds; each runs every variant once', int, 5)
  .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
  .option('--json', 'print JSON')
  .action(async (o: { models: string[]; dtype: string[]; threads: number; repeat: number; rounds: number; dir: string; json?: boolean }) => {
    const { cpuLevelVariants } = await import('./cpu-levels.js');
    const rows = await runVariantsBench(
      cpuLevelVariants(),
      { models: o.models, dtypes: o.dtype, threads: o.threads, repeat: o.repeat, rounds: o.rounds, dir: o.dir },
      (s) => process.stderr.write(`${s}\n`),
    );
    printVariants(rows, o.threads, o.json);
  });

program
  .command('wide-panels')
  .description('the 8-bit panels in wide tiles (4 tokens x 3 panels) against one panel at a time, interleaved in one process (JEPA_PANEL_WIDE)')
  .option('-m, --model <name>', 'a preset or a .gguf file', 'vit-b16')
  .option('--dtype <type>', 'weight type of a preset', 'q8_0')
  .option('-t, --threads <n>', 'compute threads', int, 2)
  .option('--rounds <n>', 'pairs of runs', int, 21)
  .option('--dir <path>', 'where the forged models live', 'tmp/bench-models')
  .action(async (o: { model: string; dtype: string; threads: number; rounds: number; dir: string }) => {
    const { runWidePanelsBench } = await import('./wide-panels-bench.js');
    const row = await runWidePanelsBench(o, (s) => process.stderr.write(`${s}\n`));
    const machine = machineInfo(o.threads);
    process.stdout.write(
      `${machine.summary}\n\n| model | wide tiles ms | one panel at a time ms | median per-pair ratio |\n|---|---|---|---|\n| ${row.model} | ${row.wideMs.toFixed(1)} | ${row.narrowMs.toFixed(1)} | ${row.ratio.toFixed(3)} |\n`,
    );
  });

program
  .command('retrieval')
  .description(
    "top-K neighbour agreement of quantized models against an f32 reference on a folder of photos (each image's pooled embedding as jepa embed gives it, L2-normalised)",
  )
  .requiredOption('--reference <gguf>', 'the reference model (f32)')
  .requiredOption('--models <ggufs...>', 'the models to compare with it (same architecture, other weight types)')
  .requiredOption('--photos <dir>', 'a folder of jpg/png images, taken in name order')
  .option('-k, --top <n>', 'K of agreement@K', int, 10)
  .option('-n, --limit <n>', 'only the first N images', int)
  .option('-t, --threads <n>', 'compute threads', int, 2)
  .option('-b, --batch <n>', 'images per graph, as jepa embed --batch', int, 32)
  .option('--pool <mode>', "mean or cls (default: jepa embed's, CLS where the model has one)")
  .option('--json <file>', 'also write the report as JSON')
  .action(
    async (o: {
      reference: string;
      models: string[];
      photos: string;
      top: number;
      limit?: number;
      threads: number;
      batch: number;
      pool?: string;
      json?: string;
    }) => {
      if (o.pool !== undefined && o.pool !== 'mean' && o.pool !== 'cls') throw new Error(`--pool must be mean or cls, got '${o.pool}'`);
      const { runRetrievalBench, retrievalMarkdown } = await import('./retrieval-bench.js');
      const { writeFileSync } = await import('node:fs');
      const report = await runRetrievalBench({ ...o, pool: o.pool as 'mean' | 'cls' | undefined }, (s) => process.stderr.write(`${s}\n`));
      const machine = machineInfo(o.threads);
      process.stdout.write(`${machine.summary}\n\n${retrievalMarkdown(report)}\n`);
      if (o.json) {
        writeFileSync(o.json, `${JSON.stringify({ machine, report }, null, 2)}\n`);
        process.stderr.write(`wrote ${o.json}\n`);
      }
    },
  );

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
      const { DEFAULT_APPROX, GRAPH_SCALARS, runSearchBench, searchMarkdown } = await import('./search-bench.js');
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
