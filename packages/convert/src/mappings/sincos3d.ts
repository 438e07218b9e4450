// V-JEPA v1 stores its fixed 3-D sincos table but not the (frames, size) it was built for; several grids
// give the same row count, so the grid is the one whose table equals the stored one (families.md §2.3).

/** [sin(p·ω_k) | cos(p·ω_k)], ω_k = 1/10000^(k/(width/2)), written into `out` at `at`. */
function sincos1d(p: number, width: number, out: Float64Array, at: number): void {
  const half = width / 2;
  for (let k = 0; k < half; k++) {
    const angle = p / 10000 ** (k / half);
    out[at + k] = Math.sin(angle);
    out[at + half + k] = Math.cos(angle);
  }
}

/** get_3d_sincos_pos_embed(uniform_power=True): [emb_t | emb_h | emb_w] each ceil(D/6)·2 wide, cut to D; rows t-major. */
export function sincos3dTable(dim: number, gridT: number, grid: number): Float64Array {
  const axis = Math.ceil(dim / 6) * 2;
  const row = new Float64Array(3 * axis);
  const table = new Float64Array(gridT * grid * grid * dim);
  let r = 0;
  for (let t = 0; t < gridT; t++) {
    for (let h = 0; h < grid; h++) {
      for (let w = 0; w < grid; w++) {
        sincos1d(t, axis, row, 0);
        sincos1d(h, axis, row, axis);
        sincos1d(w, axis, row, 2 * axis);
        table.set(row.subarray(0, dim), r * dim);
        r++;
      }
    }
  }
  return table;
}

/** Every (gridT, grid) with gridT · grid² = rows, finest spatial grid first. */
export function gridCandidates(rows: number): { gridT: number; grid: number }[] {
  const out: { gridT: number; grid: number }[] = [];
  for (let grid = Math.floor(Math.sqrt(rows)); grid >= 1; grid--) {
    if (rows % (grid * grid) === 0) out.push({ gridT: rows / (grid * grid), grid });
  }
  return out;
}

/** The grid whose table the stored one equals (to float32 storage), or null when none does. */
export function matchSincos3dGrid(stored: Float32Array, dim: number): { gridT: number; grid: number } | null {
  const rows = stored.length / dim;
  for (const c of gridCandidates(rows)) {
    const table = sincos3dTable(dim, c.gridT, c.grid);
    let worst = 0;
    for (let i = 0; i < table.length && worst <= 1e-5; i++) worst = Math.max(worst, Math.abs(table[i]! - stored[i]!));
    if (worst <= 1e-5) return c;
  }
  return null;
}
