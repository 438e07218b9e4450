// Where onnxruntime-node spends its time on the peer ViT-B/16 (fp32, or its int8 file): its own profiler, summed per op type,
// to set beside a profile of this engine (for example `perf record` on `jepa-bench encoder`).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from '../stats.js';
import { ensureExport, ensureInt8Export, loadOrt, peerPixels } from './peers-bench.js';

export interface OrtOpRow {
  op: string;
  /** Kernel time per run, ms. */
  ms: number;
  /** Nodes of this op type in one run. */
  nodes: number;
  share: number;
}

export interface OrtProfile {
  runMs: number;
  ops: OrtOpRow[];
}

interface TraceEvent {
  cat?: string;
  name?: string;
  ts: number;
  dur: number;
  args?: { op_name?: string };
}

export async function runOrtProfile(
  o: { threads: number; runs: number; warmup: number; dir: string; int8?: boolean },
  log: (s: string) => void,
): Promise<OrtProfile> {
  const ort = await loadOrt();
  const dir = resolve(o.dir);
  ensureExport(dir, log);
  const model = o.int8 ? ensureInt8Export(dir, log) : join(dir, 'vit_b16_tokens.onnx');
  const scratch = mkdtempSync(join(tmpdir(), 'jepa-ort-profile-'));
  try {
    const options = { intraOpNumThreads: o.threads, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential' } as const;
    const feeds = { pixels: new ort.Tensor('float32', peerPixels(), [1, 3, 224, 224]) };
    const warm = await ort.InferenceSession.create(model, options);
    for (let i = 0; i < o.warmup; i++) await warm.run(feeds);
    await warm.release();
    const session = await ort.InferenceSession.create(model, {
      ...options,
      enableProfiling: true,
      profileFilePrefix: join(scratch, 'ort'),
    });
    for (let i = 0; i < o.runs + 1; i++) await session.run(feeds);
    session.endProfiling();
    await session.release();
    const [file] = readdirSync(scratch).filter((f) => f.endsWith('.json'));
    if (!file) throw new Error('onnxruntime wrote no profile');
    const events = JSON.parse(readFileSync(join(scratch, file), 'utf8')) as TraceEvent[];
    // The profiled session's first run is its own warm-up; leave it out.
    const [first, ...runs] = events.filter((e) => e.name === 'model_run');
    const after = first!.ts + first!.dur;
    const byOp = new Map<string, { us: number; nodes: number }>();
    for (const e of events) {
      if (e.cat !== 'Node' || !e.name?.endsWith('_kernel_time') || e.ts < after) continue;
      const op = e.args?.op_name ?? '?';
      const acc = byOp.get(op) ?? { us: 0, nodes: 0 };
      acc.us += e.dur;
      acc.nodes += 1;
      byOp.set(op, acc);
    }
    const total = [...byOp.values()].reduce((a, b) => a + b.us, 0);
    const ops = [...byOp.entries()]
      .map(([op, v]) => ({ op, ms: v.us / 1000 / runs.length, nodes: v.nodes / runs.length, share: v.us / total }))
      .sort((a, b) => b.ms - a.ms);
    const runMs = median(runs.map((r) => r.dur / 1000));
    return { runMs, ops };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function ortProfileMarkdown(p: OrtProfile): string {
  return [
    `onnxruntime run (median): ${p.runMs.toFixed(1)} ms`,
    '',
    '| op | ms per run | nodes per run | share of kernel time |',
    '|---|---|---|---|',
    ...p.ops.map((r) => `| ${r.op} | ${r.ms.toFixed(2)} | ${r.nodes} | ${(100 * r.share).toFixed(1)} % |`),
  ].join('\n');
}
