// The AVX-512 VNNI panels' wide tiles (4 tokens against 3 panels) against one panel at a time, on the
// whole encoder: JEPA_PANEL_WIDE is read as a graph is built, so two contexts of one model, one built
// with it at 0, run interleaved in one process, and the ratio is the median of the per-pair ratios.
// Both give the same bits.
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
  const side = spec.enc.imgSize;
  const data = new Float32Array(3 * spec.enc.nFrames * side * side).map((_, i) => Math.sin(i * 0.37));
  const x = { data, shape: spec.enc.nFrames > 1 ? [1, 3, spec.enc.nFrames, side, side] : [1, 3, side, side] };
  const saved = process.env.JEPA_PANEL_WIDE;
  process.env.JEPA_PANEL_WIDE = '0';
  const narrowCtx = model.createContext();
  const wide: number[] = [];
  const narrow: number[] = [];
  try {
    await narrowCtx.encode(x); // its graph, with one panel at a time
    delete process.env.JEPA_PANEL_WIDE;
    const wideCtx = model.createContext();
    try {
      for (let i = 0; i < 2; i++) for (const c of [wideCtx, narrowCtx]) await c.encode(x);
      for (let r = 0; r < o.rounds; r++)
        for (const mode of r % 2 ? ['wide', 'narrow'] : ['narrow', 'wide']) {
          const c = mode === 'wide' ? wideCtx : narrowCtx;
          (mode === 'wide' ? wide : narrow).push(await timeMs(() => c.encode(x)));
        }
    } finally {
      wideCtx.dispose();
    }
  } finally {
    if (saved === undefined) delete process.env.JEPA_PANEL_WIDE;
    else process.env.JEPA_PANEL_WIDE = saved;
    narrowCtx.dispose();
    model.dispose();
  }
  const row = { model: spec.name, wideMs: median(wide), narrowMs: median(narrow), ratio: median(wide.map((w, i) => w / narrow[i]!)) };
  log(`${row.model}: wide ${row.wideMs.toFixed(1)} ms, one panel at a time ${row.narrowMs.toFixed(1)} ms, per-pair ratio ${row.ratio.toFixed(3)}`);
  return row;
}
