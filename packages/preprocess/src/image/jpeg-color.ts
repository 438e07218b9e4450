import type { JpegLayout } from './probe.js';

/**
 * libjpeg-turbo's output stage (as Pillow runs it: fancy upsampling on, integer YCbCr→RGB)
 * applied to the component planes jpeg-js decodes. jpeg-js would otherwise upsample chroma by
 * replication and convert colour in floating point, which puts 4:2:0 files tens of levels off
 * Pillow at colour edges. Remaining differences come from jpeg-js's IDCT alone.
 */

interface Plane {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * Whether the layout is one this module reproduces: 3 components, each at full resolution,
 * halved horizontally (4:2:2) or halved both ways (4:2:0) — the layouts Pillow and most cameras
 * write. Anything else keeps jpeg-js's own output.
 */
export function isReconstructable(layout: JpegLayout): boolean {
  if (layout.components.length !== 3) return false;
  // jpeg-js forces its own YCbCr conversion when an Adobe segment says transform 1, so the raw planes are unavailable.
  if (layout.adobeTransform !== null && layout.adobeTransform !== 0) return false;
  const maxH = Math.max(...layout.components.map((c) => c.h));
  const maxV = Math.max(...layout.components.map((c) => c.v));
  return layout.components.every((c) => {
    if (c.h < 1 || c.v < 1) return false;
    const hFactor = maxH / c.h;
    const vFactor = maxV / c.v;
    return (hFactor === 1 && vFactor === 1) || (hFactor === 2 && (vFactor === 1 || vFactor === 2));
  });
}

/** libjpeg's colour-space guess (jdapimin.c default_decompress_parms) for three components. */
function isYCbCr(layout: JpegLayout): boolean {
  if (layout.hasJfif) return true;
  if (layout.adobeTransform !== null) return layout.adobeTransform !== 0;
  const [a, b, c] = layout.components.map((k) => k.id);
  return !(a === 0x52 && b === 0x47 && c === 0x42); // 'R', 'G', 'B'
}

function h2v1Fancy(p: Plane, outW: number): Plane {
  const out = new Uint8Array(outW * p.height);
  const row = new Uint8Array(p.width * 2);
  for (let y = 0; y < p.height; y++) {
    const src = p.data.subarray(y * p.width, (y + 1) * p.width);
    const w = p.width;
    row[0] = src[0];
    row[1] = (src[0] * 3 + src[1] + 2) >> 2;
    for (let i = 1; i < w - 1; i++) {
      const v = src[i] * 3;
      row[2 * i] = (v + src[i - 1] + 1) >> 2;
      row[2 * i + 1] = (v + src[i + 1] + 2) >> 2;
    }
    row[2 * w - 2] = (src[w - 1] * 3 + src[w - 2] + 1) >> 2;
    row[2 * w - 1] = src[w - 1];
    out.set(row.subarray(0, outW), y * outW);
  }
  return { width: outW, height: p.height, data: out };
}

/** Rows above the first and below the last repeat the edge row, as libjpeg's context rows do. */
function neighbourRow(p: Plane, y: number, below: boolean): Uint8Array {
  const r = below ? Math.min(y + 1, p.height - 1) : Math.max(y - 1, 0);
  return p.data.subarray(r * p.width, (r + 1) * p.width);
}

function h2v2Fancy(p: Plane, outW: number, outH: number): Plane {
  const out = new Uint8Array(outW * outH);
  const w = p.width;
  const sums = new Int32Array(w);
  const row = new Uint8Array(w * 2);
  for (let oy = 0; oy < outH; oy++) {
    const y = oy >> 1;
    const near = p.data.subarray(y * w, (y + 1) * w);
    const far = neighbourRow(p, y, (oy & 1) === 1);
    for (let x = 0; x < w; x++) sums[x] = near[x] * 3 + far[x];
    row[0] = (sums[0] * 4 + 8) >> 4;
    row[1] = (sums[0] * 3 + sums[1] + 7) >> 4;
    for (let i = 1; i < w - 1; i++) {
      row[2 * i] = (sums[i] * 3 + sums[i - 1] + 8) >> 4;
      row[2 * i + 1] = (sums[i] * 3 + sums[i + 1] + 7) >> 4;
    }
    row[2 * w - 2] = (sums[w - 1] * 3 + sums[w - 2] + 8) >> 4;
    row[2 * w - 1] = (sums[w - 1] * 4 + 7) >> 4;
    out.set(row.subarray(0, outW), oy * outW);
  }
  return { width: outW, height: outH, data: out };
}

function replicate(p: Plane, hFactor: number, vFactor: number, outW: number, outH: number): Plane {
  const out = new Uint8Array(outW * outH);
  for (let y = 0; y < outH; y++) {
    const src = Math.floor(y / vFactor) * p.width;
    for (let x = 0; x < outW; x++) out[y * outW + x] = p.data[src + Math.floor(x / hFactor)];
  }
  return { width: outW, height: outH, data: out };
}

function upsample(p: Plane, hFactor: number, vFactor: number, outW: number, outH: number): Plane {
  if (hFactor === 1 && vFactor === 1) return p;
  // libjpeg-turbo falls back to replication for 2h upsampling of planes 2 samples wide or less.
  if (hFactor === 2 && p.width <= 2) return replicate(p, hFactor, vFactor, outW, outH);
  return vFactor === 1 ? h2v1Fancy(p, outW) : h2v2Fancy(p, outW, outH);
}

const SCALEBITS = 16;
const ONE_HALF = 1 << (SCALEBITS - 1);
const fix = (x: number): number => Math.trunc(x * (1 << SCALEBITS) + 0.5);

/** jdcolor.c build_ycc_rgb_table. */
const YCC_TABLES = (() => {
  // Every entry fits in int32 (|FIX(1.772) · 128| < 2^24), so >> is libjpeg's arithmetic RIGHT_SHIFT.
  const crR = new Int32Array(256);
  const cbB = new Int32Array(256);
  const crG = new Int32Array(256);
  const cbG = new Int32Array(256);
  for (let i = 0; i < 256; i++) {
    const x = i - 128;
    crR[i] = (fix(1.402) * x + ONE_HALF) >> SCALEBITS;
    cbB[i] = (fix(1.772) * x + ONE_HALF) >> SCALEBITS;
    crG[i] = -fix(0.71414) * x;
    cbG[i] = -fix(0.34414) * x + ONE_HALF;
  }
  return { crR, cbB, crG, cbG };
})();

/**
 * Turns jpeg-js output decoded with colorTransform off (component values, subsampled planes
 * replicated) into the RGB image libjpeg would produce.
 */
export function libjpegRgbFromComponents(raw: Uint8Array, width: number, height: number, layout: JpegLayout): Uint8Array {
  const maxH = Math.max(...layout.components.map((c) => c.h));
  const maxV = Math.max(...layout.components.map((c) => c.v));
  const planes = layout.components.map((comp, c) => {
    const hFactor = maxH / comp.h;
    const vFactor = maxV / comp.v;
    const pw = Math.ceil(width / hFactor);
    const ph = Math.ceil(height / vFactor);
    const data = new Uint8Array(pw * ph);
    const step = hFactor * 3;
    for (let i = 0; i < ph; i++) {
      let at = i * vFactor * width * 3 + c;
      for (let j = i * pw, end = j + pw; j < end; j++, at += step) data[j] = raw[at];
    }
    return upsample({ width: pw, height: ph, data }, hFactor, vFactor, width, height).data;
  });
  // A clamped view does libjpeg's range_limit on store.
  const clamped = new Uint8ClampedArray(width * height * 3);
  const out = new Uint8Array(clamped.buffer);
  const [p0, p1, p2] = planes;
  if (!isYCbCr(layout)) {
    for (let i = 0; i < width * height; i++) {
      out[i * 3] = p0[i];
      out[i * 3 + 1] = p1[i];
      out[i * 3 + 2] = p2[i];
    }
    return out;
  }
  const { crR, cbB, crG, cbG } = YCC_TABLES;
  for (let i = 0; i < width * height; i++) {
    const y = p0[i];
    const cb = p1[i];
    const cr = p2[i];
    clamped[i * 3] = y + crR[cr];
    clamped[i * 3 + 1] = y + ((cbG[cb] + crG[cr]) >> SCALEBITS);
    clamped[i * 3 + 2] = y + cbB[cb];
  }
  return out;
}
