import type { Command } from 'commander';
import { buildInfo, devices, type HostCpus, hostCpus } from '@jepa/native';
import { printLines } from '../display-text.js';

export function devicesCommand(program: Command): void {
  program
    .command('devices')
    .description('list the compute devices of this build')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => {
      const list = devices();
      const info = buildInfo();
      const cpus = hostCpus();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ build: info, devices: list, cpus }, null, 2)}\n`);
        return;
      }
      // device names and descriptions are the drivers' text: printed inert like any other
      const build = info.portable ? `portable build, CPU variant ${info.cpuVariant}` : info.nativeCpu ? '-march=native build' : 'generic build';
      printLines(`ggml ${info.ggmlVersion} (llama.cpp ${info.ggmlCommit.slice(0, 7)}); ${build}${info.cuda ? ', CUDA' : ''}`);
      list.forEach((d, i) => {
        const mem = d.memoryTotal ? `, ${(d.memoryTotal / 2 ** 30).toFixed(1)} GiB` : '';
        printLines(`${i}: ${d.name} (${d.type}) ${d.description}${mem}`);
      });
      const panels = (kernel: string | null) => (kernel ? `${kernel} panels` : "ggml's own");
      printLines(
        `CPU kernels at ${info.cpuLevel}${process.env.JEPA_CPU ? ' (JEPA_CPU)' : ''}${info.cpuVnni ? '' : ' without VNNI (JEPA_CPU_VNNI=0)'}: GELU(erf) ${info.geluErfCpu} (${info.geluErfCpuRational} after 8-bit, 4-bit and bf16 weights); f32 / f16 matmul ${panels(info.panelKernelF32)}; q8_0 / q4_0 / q4_K matmul ${panels(info.panelKernel)}; ` +
          `q8_row matmul ${info.panelKernelRows ? `${info.panelKernelRows} panels` : 'dequantized to f16'}; ` +
          `F32 K/V flash attention ${info.flashAttnCpu ?? "ggml's own"}`,
      );
      printLines(cpuThreadsLine(cpus));
    });
}

function cpuThreadsLine(cpus: HostCpus): string {
  const quota = cpus.quota === null ? 'no CPU quota' : `a CPU quota of ${+cpus.quota.toFixed(2)} (${cpus.quotaSource})`;
  const cores = cpus.physicalCores === null ? 'physical cores unknown' : `${cpus.physicalCores} physical core${cpus.physicalCores === 1 ? '' : 's'}`;
  const source = cpus.threadsFromEnv === null ? '' : ' (JEPA_THREADS)';
  return `CPU threads by default ${cpus.defaultThreads}${source}: ${cpus.affinity} CPU${cpus.affinity === 1 ? '' : 's'} this process may run on, ${cores}, ${quota}`;
}
