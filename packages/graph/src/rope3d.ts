// Host-side cos/sin tables of the three-axis rotary embedding used by V-JEPA 2 / 2.1 and LeVJEPA.
//
// Per axis d = 2 * floor(floor(headDim / 3) / 2) dimensions rotate: [0, d) time, [d, 2d) height,
// [2d, 3d) width; the rest pass through. omega_k = theta^(-k / (d / 2)). Pairs (x[2k], x[2k+1])
// rotate as x * cos + rot(x) * sin with rot(y1, y2) = (-y2, y1). The layouts differ in which angle a
// table entry carries: tiled (V-JEPA 2) repeats the d/2 angles twice, so a pair's members see
// different angles; interleaved (V-JEPA 2.1) gives both members of pair k angle k.

export type RopeLayout = 'tiled' | 'interleaved';

export interface TokenGrid {
  /** Temporal slots, rows and columns of patch tokens. */
  t: number;
  h: number;
  w: number;
}

export interface RopeTableOptions {
  headDim: number;
  layout: RopeLayout;
  grid: TokenGrid;
  /** Patch-token ids to build rows for (default: all of the grid, in order). */
  ids?: ArrayLike<number>;
  /** Leading prefix tokens (CLS): identity rows, since the references rotate only patch tokens. */
  prefix?: number;
  theta?: number;
  /** V-JEPA 2.1 encoders rescale h and w (not t) onto a reference grid of this size. */
  interpolateRefGrid?: number;
  /** V-JEPA 2-AC snaps h and w onto its grid size: factors (grid / H, grid / W). */
  spatialScale?: readonly [number, number];
}

export interface RopeTables {
  /** Rows x headDim, row-major: row r holds the factors of token r. */
  cos: Float32Array;
  sin: Float32Array;
  rows: number;
  headDim: number;
}

export function ropeAxisWidth(headDim: number): number {
  return 2 * Math.floor(Math.floor(headDim / 3) / 2);
}

/** Decodes a patch-token id into (t, h, w) on the grid: id = t * h * w + row * w + col. */
export function tokenPosition(id: number, grid: TokenGrid): [number, number, number] {
  const plane = grid.h * grid.w;
  return [Math.floor(id / plane), Math.floor((id % plane) / grid.w), id % grid.w];
}

export function ropeTables(options: RopeTableOptions): RopeTables {
  const { headDim, layout, grid } = options;
  const theta = options.theta ?? 10000;
  const prefix = options.prefix ?? 0;
  const d = ropeAxisWidth(headDim);
  if (d === 0) throw new RangeError(`head width ${headDim} leaves no dimensions to rotate`);
  const nGrid = grid.t * grid.h * grid.w;
  const ids = options.ids ?? Array.from({ length: nGrid }, (_, i) => i);
  const rows = prefix + ids.length;
  const cos = new Float32Array(rows * headDim).fill(1);
  const sin = new Float32Array(rows * headDim);
  const half = d / 2;
  const omega = Array.from({ length: half }, (_, k) => theta ** (-k / half));
  const ref = options.interpolateRefGrid;
  const rescale = (g: number) => (ref !== undefined && g > 1 ? (ref - 1) / (g - 1) : 1);
  const snap = options.spatialScale ?? [1, 1];
  const scale = [1, rescale(grid.h) * snap[0], rescale(grid.w) * snap[1]];
  for (let r = 0; r < ids.length; r++) {
    const id = ids[r]!;
    if (!Number.isInteger(id) || id < 0 || id >= nGrid) throw new RangeError(`token id ${id} is off the ${grid.t}x${grid.h}x${grid.w} grid`);
    const pos = tokenPosition(id, grid);
    const base = (prefix + r) * headDim;
    for (let axis = 0; axis < 3; axis++) {
      const p = pos[axis]! * scale[axis]!;
      for (let j = 0; j < d; j++) {
        const k = layout === 'tiled' ? j % half : j >> 1;
        const angle = p * omega[k]!;
        cos[base + axis * d + j] = Math.cos(angle);
        sin[base + axis * d + j] = Math.sin(angle);
      }
    }
  }
  return { cos, sin, rows, headDim };
}

/**
 * The sin table with the rotation's sign folded in, for the graph form x * cos + swap(x) * sin':
 * swap exchanges the members of each pair, so sin'[2k] = -sin[2k] and sin'[2k+1] = sin[2k+1].
 */
export function signedSin(tables: RopeTables): Float32Array {
  const out = Float32Array.from(tables.sin);
  for (let i = 0; i < out.length; i += 2) out[i] = -out[i]!;
  return out;
}
