"""Deterministic photo-like JPEG sets for the input-pipeline benchmark (jepa-bench pipeline).

    /usr/bin/python3 scripts/bench/make_photo_sets.py OUT [--count N] [--seed S]
        OUT/large/  N photos (default 24) from 1.4 to 24 megapixels: 4:3, 3:2 and 16:9, landscape and
                    portrait (some portrait by EXIF orientation 6 or 8, some upside down by 3), baseline
                    and progressive, 4:2:0 / 4:2:2 / 4:4:4 chroma, quality 85-95
        OUT/1024/   the same photos downscaled with Pillow to 1024 px on the long side, quality 90
                    (same chroma subsampling, scan mode and EXIF orientation as the large one)

    /usr/bin/python3 scripts/bench/make_photo_sets.py OUT --small-only --count 1000 [--seed S]
        OUT/1024/   N 1024-px photos varied cheaply from a few generated scenes (crops, flips, colour,
                    fresh sensor noise, quality and scan mode), for a memory test

The content is meant to cost a JPEG encoder what a camera photo does, not white noise and not flat
colour: 1/f (pink) noise at several scales for texture, sky-to-ground gradients, soft-edged shapes,
regions of fine detail next to smooth ones, and mild sensor noise. It prints the bits per pixel it
gets. OUT/manifest.json is written last, so a set without one is incomplete. Needs Debian's
/usr/bin/python3 with python3-pil and python3-numpy.
"""
import argparse
import json
import math
import os
import shutil
import sys
import time

import numpy as np
import PIL
from PIL import Image, ImageDraw, ImageFilter

ORIENTATION = 0x0112
ASPECTS = [(4, 3), (3, 2), (16, 9)]
SUBSAMPLING = {"4:4:4": 0, "4:2:2": 1, "4:2:0": 2}
# Pillow's transpose that turns the displayed picture into what a camera with that tag stores;
# ImageOps.exif_transpose applies the inverse.
STORE_FOR_TAG = {3: Image.ROTATE_180, 6: Image.ROTATE_90, 8: Image.ROTATE_270}
GENERATOR_VERSION = 1  # bump when the output changes, so photo-sets.ts regenerates old sets
TILE = 1021  # detail / noise tile side: prime, so its repeats do not line up with 8x8 blocks


def pink(rng, h, w, beta):
    """Zero-mean, unit-std noise whose amplitude spectrum falls as 1/f^beta."""
    white = rng.standard_normal((h, w), dtype=np.float32)
    spec = np.fft.rfft2(white)
    fy = np.fft.fftfreq(h)[:, None]
    fx = np.fft.rfftfreq(w)[None, :]
    f = np.sqrt(fx * fx + fy * fy)
    f[0, 0] = 1.0
    spec *= (1.0 / f ** beta).astype(np.float32)
    spec[0, 0] = 0
    out = np.fft.irfft2(spec, s=(h, w)).astype(np.float32)
    out -= out.mean()
    out /= out.std() + 1e-8
    return out


def band_tile(rng, lo_cut):
    """A TILE x TILE 1/f texture holding only frequencies above lo_cut (cycles / pixel)."""
    white = rng.standard_normal((TILE, TILE), dtype=np.float32)
    spec = np.fft.rfft2(white)
    fy = np.fft.fftfreq(TILE)[:, None]
    fx = np.fft.rfftfreq(TILE)[None, :]
    f = np.sqrt(fx * fx + fy * fy)
    f[0, 0] = 1.0
    amp = (1.0 / f) * (1.0 - np.exp(-((f / lo_cut) ** 4)))
    spec *= amp.astype(np.float32)
    out = np.fft.irfft2(spec, s=(TILE, TILE)).astype(np.float32)
    out /= out.std() + 1e-8
    return out


def tiled(tile, h, w, rng):
    """The tile repeated over h x w from a random phase, possibly mirrored."""
    oy, ox = rng.integers(0, TILE, size=2)
    if rng.random() < 0.5:
        tile = tile[:, ::-1]
    if rng.random() < 0.5:
        tile = tile.T
    reps = (math.ceil((h + oy) / TILE), math.ceil((w + ox) / TILE))
    return np.tile(tile, reps)[oy:oy + h, ox:ox + w]


def random_colour(rng, lo=0.1, hi=0.9):
    return rng.uniform(lo, hi, size=3).astype(np.float32)


def scene_lowres(rng, w, h):
    """The displayed scene at low resolution, float32 RGB in about [0, 1], plus a detail mask."""
    yy = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None, None]
    horizon = rng.uniform(0.3, 0.7)
    sky_top, sky_low = random_colour(rng, 0.3, 0.95), random_colour(rng, 0.5, 1.0)
    ground_hi, ground_lo = random_colour(rng, 0.15, 0.7), random_colour(rng, 0.02, 0.4)
    t_sky = np.clip(yy / horizon, 0, 1)
    t_gnd = np.clip((yy - horizon) / (1 - horizon), 0, 1)
    sky = sky_top * (1 - t_sky) + sky_low * t_sky
    ground = ground_hi * (1 - t_gnd) + ground_lo * t_gnd
    edge = pink(rng, 1, w, 1.5)[0] * 0.06 * h  # a ragged skyline
    line = (horizon * h + edge)[None, :]
    above = (np.arange(h, dtype=np.float32)[:, None] < line)[:, :, None].astype(np.float32)
    img = sky * above + ground * (1 - above)

    lum = pink(rng, h, w, 1.0)
    coarse = pink(rng, h, w, 1.6)
    chroma = np.stack([pink(rng, h, w, 1.8) for _ in range(3)], axis=-1)
    img = img * (1 + 0.25 * coarse[:, :, None]) + 0.06 * lum[:, :, None] + 0.05 * chroma
    # sky textured less than the ground
    detail = 0.25 * above[:, :, 0] + 1.0 * (1 - above[:, :, 0])

    canvas = Image.fromarray(np.clip(img * 255, 0, 255).astype(np.uint8), "RGB")
    mask_img = Image.fromarray(np.clip(detail * 255, 0, 255).astype(np.uint8), "L")
    draw = ImageDraw.Draw(canvas)
    mdraw = ImageDraw.Draw(mask_img)
    for _ in range(int(rng.integers(4, 12))):
        cx, cy = rng.uniform(0, w), rng.uniform(0.2 * h, h)
        rx, ry = rng.uniform(0.03, 0.25) * w, rng.uniform(0.03, 0.25) * h
        colour = tuple(int(c * 255) for c in random_colour(rng, 0.05, 0.95))
        kind = rng.integers(0, 3)
        box = [cx - rx, cy - ry, cx + rx, cy + ry]
        if kind == 0:
            draw.ellipse(box, fill=colour)
        elif kind == 1:
            draw.rectangle(box, fill=colour)
        else:
            pts = [(cx + rx * math.cos(a), cy + ry * math.sin(a))
                   for a in np.sort(rng.uniform(0, 2 * math.pi, size=int(rng.integers(3, 8))))]
            draw.polygon(pts, fill=colour)
        m = int(rng.uniform(0.1, 1.0) * 255)
        if kind == 0:
            mdraw.ellipse(box, fill=m)
        elif kind == 1:
            mdraw.rectangle(box, fill=m)
        else:
            mdraw.polygon(pts, fill=m)
    canvas = canvas.filter(ImageFilter.GaussianBlur(0.7))
    out = np.asarray(canvas, dtype=np.float32) / 255.0
    # shading over the shapes too, so no region is flat
    out = out * (1 + 0.12 * pink(rng, h, w, 1.3)[:, :, None])
    return out, mask_img.filter(ImageFilter.GaussianBlur(2))


def render(rng, w, h, tiles, detail_gain, noise_sigma):
    """The displayed scene at w x h: a low-res scene upscaled, full-res texture and sensor noise added."""
    lw, lh = max(16, w // 4), max(16, h // 4)
    low, mask = scene_lowres(rng, lw, lh)
    low_img = Image.fromarray(np.clip(low * 255, 0, 255).astype(np.uint8), "RGB")
    base = np.asarray(low_img.resize((w, h), Image.BICUBIC), dtype=np.float32)
    m = np.asarray(mask.resize((w, h), Image.BILINEAR), dtype=np.float32) * (detail_gain / 255.0)
    fine = tiled(tiles[0], h, w, rng) * m
    fine *= 0.6 + 0.4 * (base[:, :, 1] / 255.0)  # brighter areas show more texture, as in photos
    base += fine[:, :, None]
    base += tiled(tiles[1], h, w, rng)[:, :, None] * noise_sigma  # luma sensor noise
    for c in range(3):  # weaker chroma noise
        base[:, :, c] += tiled(tiles[2 + c], h, w, rng) * (noise_sigma * 0.5)
    return Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), "RGB")


def make_tiles(rng):
    noise = [rng.standard_normal((TILE, TILE), dtype=np.float32) for _ in range(4)]
    return [band_tile(rng, 0.06)] + noise


def camera_exif(tag, i):
    exif = Image.Exif()
    exif[0x010F] = "JEPA Bench"
    exif[0x0110] = f"Synthetic {i % 5 + 1}"
    if tag:
        exif[ORIENTATION] = tag
    return exif


def save_jpeg(img, path, quality, subsampling, progressive, exif):
    img.save(path, "JPEG", quality=int(quality), subsampling=SUBSAMPLING[subsampling],
             progressive=bool(progressive), optimize=False, exif=exif.tobytes())
    return os.path.getsize(path)


def to_long_side(img, long_side):
    w, h = img.size
    s = long_side / max(w, h)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    return img.resize(size, Image.LANCZOS, reducing_gap=3.0)


def plan_large(count, seed):
    """What each large photo is: size, orientation, JPEG options. Photo i does not depend on later ones."""
    plans = []
    for i in range(count):
        rng = np.random.default_rng([seed, 1, i])
        mp = 1.4 * (24.0 / 1.4) ** (i / max(1, count - 1))
        aw, ah = ASPECTS[i % 3]
        long_ = math.sqrt(mp * 1e6 * aw / ah)
        short = long_ * ah / aw
        long_, short = int(round(long_ / 2) * 2), int(round(short / 2) * 2)
        # orientation: tagged (stored landscape, displayed turned), stored portrait, or plain landscape
        tag = [0, 6, 0, 8, 0, 3][i % 6] if i % 2 == 1 else 0
        portrait_pixels = i % 4 == 2
        plans.append({
            "index": i,
            "long": long_, "short": short,
            "tag": tag,
            "portrait": bool(portrait_pixels or tag in (6, 8)),
            "subsampling": ["4:2:0", "4:2:2", "4:4:4", "4:2:0"][i % 4],
            "progressive": i % 3 == 1,
            "quality": int(rng.integers(85, 96)),
            "detail": float(rng.uniform(14, 26)),
            "noise": float(rng.uniform(1.2, 2.4)),
        })
    return plans


def write_large(out, count, seed):
    large_dir, small_dir = os.path.join(out, "large"), os.path.join(out, "1024")
    for d in (large_dir, small_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    tiles = make_tiles(np.random.default_rng([seed, 0]))
    rows = []
    for p in plan_large(count, seed):
        rng = np.random.default_rng([seed, 2, p["index"]])
        # the displayed picture; a camera with tag 6/8 stores it turned back to landscape
        dw, dh = (p["short"], p["long"]) if p["portrait"] else (p["long"], p["short"])
        shown = render(rng, dw, dh, tiles, p["detail"], p["noise"])
        stored = shown.transpose(STORE_FOR_TAG[p["tag"]]) if p["tag"] else shown
        name = f"photo_{p['index']:03d}.jpg"
        exif = camera_exif(p["tag"], p["index"])
        big = save_jpeg(stored, os.path.join(large_dir, name), p["quality"], p["subsampling"], p["progressive"], exif)
        small_img = to_long_side(stored, 1024)
        small = save_jpeg(small_img, os.path.join(small_dir, name), 90, p["subsampling"], p["progressive"], exif)
        w, h = stored.size
        rows.append({**p, "file": name, "width": w, "height": h, "bytes": big,
                     "bpp": big * 8 / (w * h), "small": {"width": small_img.size[0], "height": small_img.size[1],
                                                         "bytes": small, "bpp": small * 8 / small_img.size[0] / small_img.size[1]}})
        print(f"  {name} {w}x{h} ({w * h / 1e6:.1f} MP) q{p['quality']} {p['subsampling']}"
              f"{' progressive' if p['progressive'] else ''}{' orientation ' + str(p['tag']) if p['tag'] else ''}"
              f": {big / 1e6:.2f} MB, {rows[-1]['bpp']:.2f} bpp; 1024: {rows[-1]['small']['bpp']:.2f} bpp", flush=True)
    return rows


def write_small_only(out, count, seed):
    small_dir = os.path.join(out, "1024")
    shutil.rmtree(small_dir, ignore_errors=True)
    os.makedirs(small_dir)
    tiles = make_tiles(np.random.default_rng([seed, 0]))
    bases = []
    for b in range(6):  # a few 1280 x 1280 scenes, every photo is a window of one
        rng = np.random.default_rng([seed, 3, b])
        img = render(rng, 1280, 1280, tiles, float(rng.uniform(14, 26)), 0.0)
        bases.append(img)
    rows = []
    for i in range(count):
        rng = np.random.default_rng([seed, 4, i])
        base = bases[i % len(bases)]
        aw, ah = ASPECTS[int(rng.integers(0, 3))]
        portrait = rng.random() < 0.3
        scale = rng.uniform(0.8, 1.0)
        cw = int(1280 * scale)
        ch = int(cw * ah / aw)
        if portrait:
            cw, ch = ch, cw
        x0, y0 = int(rng.integers(0, 1280 - cw + 1)), int(rng.integers(0, 1280 - ch + 1))
        win = base.crop((x0, y0, x0 + cw, y0 + ch))
        if rng.random() < 0.5:
            win = win.transpose(Image.FLIP_LEFT_RIGHT)
        s = 1024 / max(cw, ch)
        win = win.resize((round(cw * s), round(ch * s)), Image.BICUBIC)
        # colour, exposure and fresh sensor noise in one pass
        arr = np.asarray(win, dtype=np.float32)
        arr = arr * rng.uniform(0.8, 1.15, size=3).astype(np.float32) + np.float32(rng.uniform(-12, 12))
        arr += tiled(tiles[1], arr.shape[0], arr.shape[1], rng)[:, :, None] * np.float32(rng.uniform(1.0, 2.2))
        img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")
        tag = [0, 0, 0, 6, 0, 8, 0, 3][i % 8]
        if tag:
            img = img.transpose(STORE_FOR_TAG[tag])
        name = f"photo_{i:04d}.jpg"
        sub = ["4:2:0", "4:2:2", "4:4:4", "4:2:0"][i % 4]
        prog = i % 3 == 1
        q = int(rng.integers(85, 96))
        size = save_jpeg(img, os.path.join(small_dir, name), q, sub, prog, camera_exif(tag, i))
        rows.append({"file": name, "width": img.size[0], "height": img.size[1], "bytes": size, "quality": q,
                     "subsampling": sub, "progressive": prog, "tag": tag,
                     "bpp": size * 8 / (img.size[0] * img.size[1])})
    return rows


def summary(label, rows, key=None):
    sel = [r[key] if key else r for r in rows]
    total = sum(r["bytes"] for r in sel)
    mps = [r["width"] * r["height"] / 1e6 for r in sel]
    bpp = [r["bytes"] * 8 / (r["width"] * r["height"]) for r in sel]
    print(f"{label}: {len(sel)} JPEGs, {total / 1e6:.1f} MB, {min(mps):.2f}-{max(mps):.2f} MP, "
          f"{min(bpp):.2f}-{max(bpp):.2f} bpp (mean {sum(bpp) / len(bpp):.2f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--small-only", action="store_true")
    a = ap.parse_args()
    if a.count < 1:
        sys.exit("--count must be at least 1")
    os.makedirs(a.out, exist_ok=True)
    manifest = os.path.join(a.out, "manifest.json")
    if os.path.exists(manifest):
        os.remove(manifest)
    t0 = time.time()
    if a.small_only:
        rows = write_small_only(a.out, a.count, a.seed)
        summary(os.path.join(a.out, "1024"), rows)
        doc = {"kind": "small-only", "version": GENERATOR_VERSION, "count": a.count, "seed": a.seed, "pillow": PIL.__version__, "small": rows}
    else:
        rows = write_large(a.out, a.count, a.seed)
        summary(os.path.join(a.out, "large"), rows)
        summary(os.path.join(a.out, "1024"), rows, "small")
        doc = {"kind": "sets", "version": GENERATOR_VERSION, "count": a.count, "seed": a.seed, "pillow": PIL.__version__, "large": rows}
    with open(manifest, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {a.out} in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
