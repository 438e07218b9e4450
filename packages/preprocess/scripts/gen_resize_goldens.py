#!/usr/bin/python3
"""Resize goldens: random (input size, output size, filter) cases resized by Pillow.

Run with Debian's interpreter: /usr/bin/python3 packages/preprocess/scripts/gen_resize_goldens.py
Writes fixtures/preprocess/resize/{cases.json,cases.bin.gz}: the blob holds, per case, the
input RGB bytes followed by Pillow's output bytes; the index gives offsets and geometry.
Procedural cases (larger inputs, generated identically by the test) store only Pillow's output.
"""
import gzip
import hashlib
import json
import os
import random

import numpy as np
import PIL
from PIL import Image

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
OUT = os.path.join(ROOT, 'fixtures', 'preprocess', 'resize')
FILTERS = {'bilinear': Image.BILINEAR, 'bicubic': Image.BICUBIC}


def random_image(rng, w, h):
    kind = rng.choice(['noise', 'smooth', 'edges'])
    if kind == 'noise':
        return np.frombuffer(rng.randbytes(w * h * 3), dtype=np.uint8).reshape(h, w, 3)
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.zeros((h, w, 3), dtype=np.int64)
    for c in range(3):
        a, b, d = rng.randint(-40, 40), rng.randint(-40, 40), rng.randint(0, 255)
        img[..., c] = a * xx + b * yy + d
    if kind == 'edges':
        # Hard black/white blocks give the bicubic overshoot that clip8 must catch.
        img = np.where(((xx // max(1, w // 4)) + (yy // max(1, h // 3))) % 2 == 0, 0, 255)[..., None].repeat(3, 2)
    return np.clip(img, 0, 255).astype(np.uint8)


def procedural_image(w, h):
    """Same formula as test/procedural.ts: exact integer arithmetic, reproducible in TypeScript."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.int64)
    channels = []
    for c in range(3):
        v = (xx * (3 + c) + yy * (5 + 2 * c) + ((xx * yy + 7 * c) % 37) * 9 + ((xx // 13 + yy // 11) % 2) * 96) % 256
        channels.append(v)
    return np.stack(channels, axis=-1).astype(np.uint8)


def sizes(rng):
    special = [
        (1, 1), (1, rng.randint(2, 48)), (rng.randint(2, 48), 1), (48, 1), (1, 48), (2, 47), (47, 2),
    ]
    if rng.random() < 0.3:
        return rng.choice(special)
    return rng.randint(1, 48), rng.randint(1, 48)


def main():
    rng = random.Random(20261129)
    os.makedirs(OUT, exist_ok=True)
    blob = bytearray()
    cases = []
    while len(cases) < 240:
        in_w, in_h = sizes(rng)
        mode = rng.random()
        if mode < 0.15:
            out_w, out_h = 1, rng.randint(1, 64)
        elif mode < 0.3:
            out_w, out_h = rng.randint(1, 64), 1
        else:
            out_w, out_h = rng.randint(1, 64), rng.randint(1, 64)
        if rng.random() < 0.2:
            out_h = in_h  # horizontal-only pass
        elif rng.random() < 0.2:
            out_w = in_w  # vertical-only pass
        if (out_w, out_h) == (in_w, in_h):
            continue
        name = rng.choice(sorted(FILTERS))
        src = random_image(rng, in_w, in_h)
        dst = np.asarray(Image.fromarray(src, 'RGB').resize((out_w, out_h), FILTERS[name]))
        in_off = len(blob)
        blob += src.tobytes()
        out_off = len(blob)
        blob += dst.tobytes()
        cases.append({'in': [in_w, in_h], 'out': [out_w, out_h], 'filter': name, 'inOffset': in_off, 'outOffset': out_off})

    procedural = []
    for (in_w, in_h, out_w, out_h) in [(640, 480, 298, 224), (480, 640, 224, 298), (1000, 3, 224, 1), (3, 1000, 2, 500),
                                       (333, 250, 388, 292), (256, 256, 517, 517), (1920, 1080, 398, 224), (97, 61, 438, 275)]:
        src = procedural_image(in_w, in_h)
        for name in sorted(FILTERS):
            dst = np.asarray(Image.fromarray(src, 'RGB').resize((out_w, out_h), FILTERS[name]))
            procedural.append({'in': [in_w, in_h], 'out': [out_w, out_h], 'filter': name,
                               'sha256': hashlib.sha256(dst.tobytes()).hexdigest()})

    with gzip.open(os.path.join(OUT, 'cases.bin.gz'), 'wb', compresslevel=9) as f:
        f.write(bytes(blob))
    with open(os.path.join(OUT, 'cases.json'), 'w') as f:
        json.dump({'generator': 'packages/preprocess/scripts/gen_resize_goldens.py', 'pillow': PIL.__version__,
                   'cases': cases, 'procedural': procedural}, f, indent=0)
        f.write('\n')
    print(f'{len(cases)} random cases ({len(blob)} bytes), {len(procedural)} procedural cases')


if __name__ == '__main__':
    main()
