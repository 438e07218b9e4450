// What the non-finite weight scan costs: Model.load with and without it (alternating, median ms),
// and the scan alone (findNonFinite over a fresh mapping of the file), on real-size presets.
import { statSync } from 'node:fs';
import { loadModelSpec } from '@jepa/gguf';
import { Model } from '@jepa/graph';
import { findNonFinite, mapFile } from '@jepa/native';
import { presetModel, PRESETS } from './presets.js';
import { median, timeMs } from './stats.js';

export interface LoadBenchOptions {
  models: string[];
  dtypes: string[];
  threads: number;
  repeat: number;
  warmup: number;
  dir: string;
}

export interface LoadRow {
  model: string;
  dtype: string;
  threads: number;
  fileMiB: number;
  /** Bytes the scan reads: every tensor's data. */
  scannedMiB: number;
  loadMs: number;
  loadNoScanMs: number;
  /** The scan alone, on a fresh mapping (its pages not yet mapped in, as in Model.load). */
  scanMs: number;
  scanGiBps: number;
  samples: { load: number[]; loadNoScan: number[]; scan: number[] };
}

export async function runLoadBench(o: LoadBenchOptions, log: (s: string) => void): Promise<LoadRow[]> {
  const rows: LoadRow[] = [];
  for (const name of o.models) {
    const p = PRESETS[name];
    if (!p) throw new Error(`unknown preset '${name}' (${Object.keys(PRESETS).join(', ')})`);
    for (const dtype of o.dtypes) {
      const path = presetModel(name, dtype, o.dir);
      const spec = loadModelSpec(path);
      const entries = [...spec.tensors.values()].map((t) => ({ offset: t.offset, nbytes: t.nbytes, type: t.type }));
      const scannedBytes = entries.reduce((a, e) => a + e.nbytes, 0);
      const load = (allowNonFinite: boolean) => timeMs(async () => (await Model.load(path, { threads: o.threads, allowNonFinite })).dispose());
      const scan = () =>
        timeMs(async () => {
          const mapping = mapFile(path);
          try {
            const found = await findNonFinite(mapping, entries, o.threads);
            if (found.some((r) => r.status === 'nan' || r.status === 'inf')) throw new Error(`${path} holds non-finite weights`);
          } finally {
            mapping.dispose();
          }
        });
      for (let i = 0; i < o.warmup; i++) {
        await load(false);
        await load(true);
        await scan();
      }
      const samples = { load: [] as number[], loadNoScan: [] as number[], scan: [] as number[] };
      // alternating, so that drift in the machine's state falls on both
      for (let i = 0; i < o.repeat; i++) {
        samples.load.push(await load(false));
        samples.loadNoScan.push(await load(true));
        samples.scan.push(await scan());
      }
      const row: LoadRow = {
        model: p.title,
        dtype,
        threads: o.threads,
        fileMiB: statSync(path).size / 2 ** 20,
        scannedMiB: scannedBytes / 2 ** 20,
        loadMs: median(samples.load),
        loadNoScanMs: median(samples.loadNoScan),
        scanMs: median(samples.scan),
        scanGiBps: scannedBytes / 2 ** 30 / (median(samples.scan) / 1000),
        samples,
      };
      rows.push(row);
      log(
        `${p.title} ${dtype} t${o.threads}: load ${row.loadMs.toFixed(0)} ms, without the scan ${row.loadNoScanMs.toFixed(0)} ms, the scan alone ${row.scanMs.toFixed(0)} ms`,
      );
    }
  }
  return rows;
}

export function loadMarkdown(rows: LoadRow[]): string {
  return [
    '| model | dtype | threads | file MiB | Model.load ms | with allowNonFinite ms | difference ms | scan alone ms | scan GiB/s |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.model} | ${r.dtype} | ${r.threads} | ${r.fileMiB.toFixed(0)} | ${r.loadMs.toFixed(0)} | ${r.loadNoScanMs.toFixed(0)} | ${(r.loadMs - r.loadNoScanMs).toFixed(0)} | ${r.scanMs.toFixed(0)} | ${r.scanGiBps.toFixed(2)} |`,
    ),
  ].join('\n');
}
