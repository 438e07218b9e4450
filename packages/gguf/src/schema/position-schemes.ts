import type { PositionScheme } from './families.js';

/**
 * What each position scheme (jepa.enc.pos) asks of the tensor table and the encoder graph: the one place a
 * scheme's quirks are declared, so neither branches on the scheme's name.
 */
export interface PositionSchemeTraits {
  /** enc.pos_embed is stored and added to the patch tokens (false: the positions rotate q and k instead). */
  readonly table: boolean;
  /** The table has a row per CLS token ahead of the patch rows, added to the CLS token (a learned table). */
  readonly clsRows: boolean;
  /** An image model's table may be resized on the host to another patch grid; else only the trained input fits. */
  readonly resizable: boolean;
  /** The rotation of q and k: 2-D from the patch grid (DINOv3), 3-D from the token ids; null with a table. */
  readonly rotary: '2d' | '3d' | null;
}

export const POSITION_SCHEMES: Readonly<Record<PositionScheme, PositionSchemeTraits>> = Object.freeze({
  sincos2d: { table: true, clsRows: false, resizable: true, rotary: null },
  // a table over the clip's tokens (3-D, VideoMAE's 1-D) is used at the trained clip only, as HF does
  sincos3d: { table: true, clsRows: false, resizable: false, rotary: null },
  sincos1d: { table: true, clsRows: false, resizable: false, rotary: null },
  // resizable for one frame only: ViViT's learned table covers its clip
  learned: { table: true, clsRows: true, resizable: true, rotary: null },
  rope3d: { table: false, clsRows: false, resizable: false, rotary: '3d' },
  rope2d: { table: false, clsRows: false, resizable: false, rotary: '2d' },
});

/** Rows of enc.pos_embed ahead of the patch rows: the CLS tokens' in a learned table, else none. */
export function positionPrefixRows(e: { pos: PositionScheme; nCls: number }): number {
  return POSITION_SCHEMES[e.pos].clsRows ? e.nCls : 0;
}
