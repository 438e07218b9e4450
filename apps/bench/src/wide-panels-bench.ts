// The AVX-512 VNNI panels' wide tiles (4 tokens against 3 panels) against one panel at a time, on the
// whole encoder: JEPA_PANEL_WIDE is read at every matmul node, so one process interleaves the two,
// run by run, and the ratio is the median of the per-pair ratios. Both give the same bits.
import { loadModelSpec } from '@jepa/gguf';
import { Model } from '@jepa/graph';
import { presetModel } from './presets.js';
import { median, timeMs } from './stats.js';

export interface WidePanelsRow {
  model: string;
  wideMs: number;
  narrowMs: number;
  ratio: number;
}

export async function runWidePanelsBench(
  o: { model: string; dtype: string; threads: number; rounds: number; dir: string },
  log: (s: string) => void,
): Promise<WidePanelsRow> {
  const path = o.model.endsWith('.gguf') ? o.model : presetModel(o.model, o.dtype, o.dir);
  const spec = loadModelSpec(path);
  const model = await Model.load(path, { threads: o.threads });
  const ctx = model.createContext();
  const side = spec.enc.imgSize;
  const data = new Float32Array(3 * spec.enc.nFrames * side * side).map((_, i) => Math.sin(i * 0.37));
  const x = { data, shape: spec.enc.nFrames > 1 ? [1, 3, spec.enc.nFrames, side, side] : [1, 3, side, side] };
  const wide: number[] = [];
  const narrow: number[] = [];
  const saved = process.env.JEPA_PANEL_WIDE;
  try {
    for (let i = 0; i < 2; i++) await ctx.encode(x);
    for (let r = 0; r < o.rounds; r++)
      for (const mode of r % 2 ? ['wide', 'narrow'] : ['narrow', 'wide']) {
        if (mode === 'narrow') process.env.JEPA_PANEL_WIDE = '0';
        else delete process.env.JEPA_PANEL_WIDE;
        (mode === 'wide' ? wide : narrow).push(await timeMs(() => ctx.encode(x)));
      }
  } finally {
    if (saved === undefined) delete process.env.JEPA_PANEL_WIDE;
    else process.env.JEPA_PANEL_WIDE = saved;
    ctx.dispose();
    model.dispose();
  }
  const row = { model: spec.name, wideMs: median(wide), narrowMs: median(narrow), ratio: median(wide.map((w, i) => w / narrow[i]!)) };
  log(`${row.model}: wide ${row.wideMs.toFixed(1)} ms, one panel at a time ${row.narrowMs.toFixed(1)} ms, per-pair ratio ${row.ratio.toFixed(3)}`);
  return row;
}
