"""Position-table resize vectors: torch's bicubic interpolate (align_corners=False), plain and
antialiased, up and down, square and not, in float64. Writes fixtures/reference/positions/.

    /usr/bin/python3 scripts/reference/position_vectors.py
"""
import json
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "reference", "positions")
CASES = [  # (side, out_h, out_w, antialias)
    (4, 3, 3, False), (4, 3, 3, True), (3, 5, 4, False), (3, 5, 4, True), (5, 2, 7, True), (6, 6, 1, False),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(11)
    manifest = []
    for k, (side, oh, ow, aa) in enumerate(CASES):
        dim = 5
        table = rng.standard_normal((1 + side * side, dim)).astype(np.float32)
        patch = torch.from_numpy(table[1:].astype(np.float64)).reshape(1, side, side, dim).permute(0, 3, 1, 2)
        resized = torch.nn.functional.interpolate(patch, size=(oh, ow), mode="bicubic", align_corners=False, antialias=aa)
        out = np.concatenate([table[:1], resized.permute(0, 2, 3, 1).reshape(oh * ow, dim).numpy().astype(np.float32)])
        name = f"case{k}"
        np.save(os.path.join(OUT, f"{name}_in.npy"), np.ascontiguousarray(table))
        np.save(os.path.join(OUT, f"{name}_out.npy"), np.ascontiguousarray(out))
        manifest.append({"name": name, "side": side, "out_h": oh, "out_w": ow, "antialias": aa, "dim": dim, "prefix": 1})
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
