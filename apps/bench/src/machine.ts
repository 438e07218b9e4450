import { cpus } from 'node:os';
import { buildInfo } from '@jepa/native';

export function machineInfo(threads: number) {
  const info = buildInfo();
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const features = Object.entries(info.cpu)
    .filter(([, on]) => on)
    .map(([k]) => k)
    .join(' ');
  return {
    cpu,
    cores: cpus().length,
    threads,
    node: process.version,
    ggml: `${info.ggmlVersion} (llama.cpp ${info.ggmlCommit.slice(0, 7)})`,
    build: { cuda: info.cuda, nativeCpu: info.nativeCpu, portable: info.portable, cpuVariant: info.cpuVariant, cpuLevel: info.cpuLevel, features },
    summary: `${cpu}, ${cpus().length} cores, ${threads} threads; node ${process.version}; ggml ${info.ggmlVersion} (llama.cpp ${info.ggmlCommit.slice(0, 7)}); ${info.portable ? `portable (ggml CPU variant ${info.cpuVariant}, own kernels ${info.cpuLevel})` : info.nativeCpu ? '-march=native' : 'generic x86-64'}${info.cuda ? ', CUDA' : ''}; ${features}`,
  };
}
