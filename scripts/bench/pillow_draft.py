"""Pillow's draft mode against its full decode, on the same files and the same recipe: how long each
takes and how far draft's pixels are after the recipe's resize and centre crop. Prints one JSON line:

    {"files": [{"shrink": s, "fullMs": x, "draftMs": y, "maxAbs": m, "meanAbs": a}, ...], "pillow": "9.4.0"}

    /usr/bin/python3 scripts/bench/pillow_draft.py --recipe JSON --files LIST_FILE

--recipe and LIST_FILE as for pillow_preprocess.py. The full side is pillow_preprocess.py's
preprocess(). The draft side calls Image.draft('RGB', size) first, with size the recipe's resize of
the upright image turned back to the stored orientation (draft reads the stored pixels), then does the
same exif_transpose, convert and crop, resizing to the size computed from the full image's
dimensions, so both sides have the same geometry and only the decode differs. Each file runs full
then draft, or draft then full, alternating. Differences are in 8-bit levels over every byte of the
cropped RGB output.
"""
import argparse
import json
import time

import numpy as np
import PIL
from PIL import Image, ImageOps

from pillow_preprocess import crop_offset, preprocess, read_inputs, target_size

ORIENTATION = 0x0112


def preprocess_draft(path, recipe, resample):
    img = Image.open(path)
    upright_w, upright_h = img.size
    turned = img.getexif().get(ORIENTATION, 1) in (5, 6, 7, 8)
    if turned:
        upright_w, upright_h = upright_h, upright_w
    want_w, want_h = target_size(upright_w, upright_h, recipe)
    img.draft("RGB", (want_h, want_w) if turned else (want_w, want_h))
    scale = img.decoderconfig[0] if img.decoderconfig else 1
    img = ImageOps.exif_transpose(img)
    img = img.convert("RGB")
    img = img.resize((want_w, want_h), resample, reducing_gap=None)
    crop = recipe.get("cropSize")
    if crop:
        rounding = recipe.get("cropRounding", "hf")
        left = crop_offset(img.width, crop, rounding)
        top = crop_offset(img.height, crop, rounding)
        img = img.crop((left, top, left + crop, top + crop))
    img.load()
    return img, scale


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - t0) * 1000.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--files", required=True)
    a = ap.parse_args()
    recipe, resample, files = read_inputs(a)
    preprocess(files[0], recipe, resample)  # untimed: Pillow's plugin loading
    rows = []
    for i, path in enumerate(files):
        if i % 2 == 0:
            full, full_ms = timed(lambda: preprocess(path, recipe, resample))
            (draft, scale), draft_ms = timed(lambda: preprocess_draft(path, recipe, resample))
        else:
            (draft, scale), draft_ms = timed(lambda: preprocess_draft(path, recipe, resample))
            full, full_ms = timed(lambda: preprocess(path, recipe, resample))
        diff = np.abs(np.asarray(full, dtype=np.int16) - np.asarray(draft, dtype=np.int16))
        rows.append({
            "shrink": scale,
            "fullMs": round(full_ms, 4),
            "draftMs": round(draft_ms, 4),
            "maxAbs": int(diff.max()),
            "meanAbs": float(diff.mean()),
        })
    print(json.dumps({"files": rows, "pillow": PIL.__version__}))


if __name__ == "__main__":
    main()
