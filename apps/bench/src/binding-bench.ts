// What the JS binding costs: graph building per node, graph building against compute for a
// ViT-B-shaped graph, and mul_mat throughput through the binding against a C++ driver on the same ggml.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { createContext, openBackend, quantizeRows, type Backend } from '@jepa/native';
import { median, sample } from './stats.js';
import { VIT_B_224, buildVitGraph, createVitWeights } from './vit-shaped-graph.js';

export interface BindingBenchOptions {
  threads: number;
  repeat: number;
  warmup: number;
  rounds: number;
}

export interface MulMatRow {
  shape: string;
  type: 'f32' | 'f16';
  bindingMs: number;
  driverMs: number;
  bindingGflops: number;
  driverGflops: number;
  overheadPct: number;
}

export interface BindingBenchReport {
  usPerNode: number;
  vit: { nodes: number; buildMs: number; computeMs: number; buildFraction: number };
  mulMat: MulMatRow[];
}

function nodeBuildCost(): number {
  const nodes = 20000;
  const ctx = createContext(nodes + 8);
  const t0 = process.hrtime.bigint();
  let x = ctx.newTensor(0, [64]);
  for (let i = 0; i < nodes; i++) x = ctx.scale(x, 1.0001);
  const graph = ctx.buildGraph([x]);
  const us = Number(process.hrtime.bigint() - t0) / 1e3;
  graph.dispose();
  ctx.dispose();
  return us / nodes;
}

async function vitBuildVsCompute(backend: Backend, o: BindingBenchOptions) {
  const weights = createVitWeights(VIT_B_224, backend);
  const built = buildVitGraph(VIT_B_224, weights);
  built.graph.allocate(backend);
  built.input.set(new Float32Array(VIT_B_224.dim * VIT_B_224.tokens).fill(0.01));
  const computeMs = median(await sample(() => built.graph.compute(backend), o.repeat, o.warmup));
  const nodes = built.graph.nodeCount;
  const buildMs = median(
    await sample(
      () => {
        const g = buildVitGraph(VIT_B_224, weights);
        g.graph.dispose();
        g.ctx.dispose();
      },
      o.repeat * 4,
      o.warmup,
    ),
  );
  built.graph.dispose();
  built.ctx.dispose();
  weights.ctx.dispose();
  return { nodes, buildMs, computeMs, buildFraction: buildMs / computeMs };
}

async function bindingMulMat(backend: Backend, k: number, m: number, n: number, type: number, o: BindingBenchOptions): Promise<number> {
  const ctx = createContext(4);
  const a = ctx.newTensor(type, [k, m]);
  const b = ctx.newTensor(0, [k, n]);
  ctx.allocate(backend);
  a.set(type === 0 ? uniform(k * m, 1) : await quantizeRows(type, uniform(k * m, 1), m, k));
  b.set(uniform(k * n, 2));
  const out = ctx.mulMat(a, b);
  const graph = ctx.buildGraph([out]);
  graph.allocate(backend);
  const ms = median(await sample(() => graph.compute(backend), o.repeat, o.warmup));
  graph.dispose();
  ctx.dispose();
  return ms;
}

function driverMulMat(k: number, m: number, n: number, type: 'f32' | 'f16', o: BindingBenchOptions): number {
  const require = createRequire(import.meta.url);
  const driver = (require('@jepa/addon') as { mulmatDriverPath(): string }).mulmatDriverPath();
  const out = execFileSync(driver, [k, m, n, type, o.threads, o.repeat].map(String)).toString();
  return (JSON.parse(out) as { ms: number }).ms;
}

/** Values in [-1, 1), like the driver's, so both multiply the same kind of numbers. */
function uniform(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2147483648 - 1;
  }
  return out;
}

export const MULMAT_SHAPES: [number, number, number][] = [
  [1024, 1024, 1024],
  [768, 3072, 197], // ViT-B fc1
  [3072, 768, 197], // ViT-B fc2
  [768, 2304, 197], // ViT-B qkv
];

export async function runBindingBench(o: BindingBenchOptions, log: (s: string) => void): Promise<BindingBenchReport> {
  const backend = openBackend({ device: 'cpu', threads: o.threads });
  const usPerNode = nodeBuildCost();
  log(`graph build: ${usPerNode.toFixed(2)} us per node`);
  const vit = await vitBuildVsCompute(backend, o);
  log(`ViT-B/16 224 graph: ${vit.nodes} nodes, build ${vit.buildMs.toFixed(2)} ms, compute ${vit.computeMs.toFixed(1)} ms`);
  const mulMat: MulMatRow[] = [];
  for (const [k, m, n] of MULMAT_SHAPES) {
    for (const type of ['f32', 'f16'] as const) {
      const bind: number[] = [];
      const drv: number[] = [];
      // Alternate the two so drift on a shared machine hits both alike.
      for (let r = 0; r < o.rounds; r++) {
        bind.push(await bindingMulMat(backend, k, m, n, type === 'f32' ? 0 : 1, o));
        drv.push(driverMulMat(k, m, n, type, o));
      }
      const bindingMs = median(bind);
      const driverMs = median(drv);
      const flop = 2 * k * m * n;
      const row = {
        shape: `${k}x${m}x${n}`,
        type,
        bindingMs,
        driverMs,
        bindingGflops: flop / (bindingMs * 1e6),
        driverGflops: flop / (driverMs * 1e6),
        overheadPct: (100 * (bindingMs - driverMs)) / driverMs,
      };
      mulMat.push(row);
      log(`mul_mat ${row.shape} ${type}: binding ${bindingMs.toFixed(3)} ms, driver ${driverMs.toFixed(3)} ms (${row.overheadPct.toFixed(2)} %)`);
    }
  }
  backend.dispose();
  return { usPerNode, vit, mulMat };
}

export function bindingReportMarkdown(r: BindingBenchReport): string {
  const lines = [
    `| graph build | value |`,
    `|---|---|`,
    `| µs per node (20000-node chain) | ${r.usPerNode.toFixed(2)} |`,
    `| ViT-B/16 224² graph: nodes | ${r.vit.nodes} |`,
    `| ViT-B/16 224² graph: build ms | ${r.vit.buildMs.toFixed(2)} |`,
    `| ViT-B/16 224² graph: compute ms | ${r.vit.computeMs.toFixed(1)} |`,
    `| build / compute | ${(100 * r.vit.buildFraction).toFixed(2)} % |`,
    '',
    `| mul_mat K×M×N | type | binding ms | driver ms | binding GFLOP/s | driver GFLOP/s | binding cost |`,
    `|---|---|---|---|---|---|---|`,
    ...r.mulMat.map(
      (m) =>
        `| ${m.shape} | ${m.type} | ${m.bindingMs.toFixed(3)} | ${m.driverMs.toFixed(3)} | ${m.bindingGflops.toFixed(1)} | ${m.driverGflops.toFixed(1)} | ${m.overheadPct.toFixed(2)} % |`,
    ),
  ];
  return lines.join('\n');
}
