"""Times Pillow's preprocessing of files, the way an HF / torchvision user's Python loop does it:
Image.open + ImageOps.exif_transpose + convert('RGB') + the recipe's resize + centre crop, one file
at a time in this one process. Prints one JSON line:

    {"perImageMs": [...], "medianMs": x, "meanMs": y, "totalS": z, "pillow": "9.4.0", ...}

    /usr/bin/python3 scripts/bench/pillow_preprocess.py --recipe JSON --files LIST_FILE [--repeat R] [--warmup W]

--recipe is a JSON object, inline or @path:
    {"mode": "shortest_edge", "resizeShort": 256, "cropSize": 224, "resample": "bilinear" | "bicubic"}
    {"mode": "squash", "squashSize": 224, "cropSize": 224, "resample": ...}
with optional "cropRounding": "hf" (floor of the half margin, the default) or "torchvision"
(round half to even). LIST_FILE holds one path a line. With --repeat R every file is timed R times
(passes in order, so later passes read from the page cache); perImageMs[i] is the median of file i's
times, medianMs and meanMs are over perImageMs, totalS is the time of all the passes. Before them the
first W files (default 1) go through once untimed, so Pillow's lazy plugin loading is not timed.
"""
import argparse
import json
import statistics
import sys
import time

import PIL
from PIL import Image, ImageOps

FILTERS = {"bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC}


def target_size(w, h, recipe):
    if recipe["mode"] == "squash":
        return recipe["squashSize"], recipe["squashSize"]
    if recipe["mode"] != "shortest_edge":
        raise ValueError(f"unknown recipe mode {recipe['mode']!r}")
    size = recipe["resizeShort"]
    short, long_ = (w, h) if w <= h else (h, w)
    # HF's get_resize_output_image_size / torchvision's resize with one int
    new_long = int(size * long_ / short)
    return (size, new_long) if w <= h else (new_long, size)


def crop_offset(size, crop, rounding):
    if rounding == "torchvision":
        return int(round((size - crop) / 2.0))
    return (size - crop) // 2


def preprocess(path, recipe, resample):
    img = Image.open(path)
    img = ImageOps.exif_transpose(img)
    img = img.convert("RGB")
    img = img.resize(target_size(img.width, img.height, recipe), resample, reducing_gap=None)
    crop = recipe.get("cropSize")
    if crop:
        rounding = recipe.get("cropRounding", "hf")
        left = crop_offset(img.width, crop, rounding)
        top = crop_offset(img.height, crop, rounding)
        img = img.crop((left, top, left + crop, top + crop))
    img.load()
    return img


def read_inputs(a):
    """--recipe (JSON, or @file) and --files (one path a line) -> (recipe, resample filter, files)."""
    text = a.recipe
    if text.startswith("@"):
        with open(text[1:]) as f:
            text = f.read()
    recipe = json.loads(text)
    resample = FILTERS.get(recipe.get("resample"))
    if resample is None:
        sys.exit(f"recipe resample must be bilinear or bicubic, got {recipe.get('resample')!r}")
    with open(a.files) as f:
        files = [line.strip() for line in f if line.strip()]
    if not files:
        sys.exit("no files listed")
    return recipe, resample, files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--files", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=1)
    a = ap.parse_args()
    recipe, resample, files = read_inputs(a)
    times = [[] for _ in files]
    shape = None
    for path in files[:max(0, a.warmup)]:  # untimed: Pillow's plugin loading and the first allocations
        preprocess(path, recipe, resample)
    t_all = time.perf_counter()
    for _ in range(max(1, a.repeat)):
        for i, path in enumerate(files):
            t0 = time.perf_counter()
            out = preprocess(path, recipe, resample)
            times[i].append((time.perf_counter() - t0) * 1000.0)
            shape = out.size
    total = time.perf_counter() - t_all
    per = [statistics.median(t) for t in times]
    print(json.dumps({
        "perImageMs": [round(t, 4) for t in per],
        "medianMs": statistics.median(per),
        "meanMs": statistics.fmean(per),
        "totalS": total,
        "pillow": PIL.__version__,
        "images": len(files),
        "repeat": max(1, a.repeat),
        "outputSize": list(shape),
    }))


if __name__ == "__main__":
    main()
