#!/usr/bin/python3
"""Write a random-weight HF Dinov2Model folder in facebook/dinov2-giant's layout, for timing `jepa convert` and
the encoder at real size (the released weights are not downloadable here).

    /usr/bin/python3 scripts/bench/make_dinov2_giant.py --size giant -o tmp/dinov2-giant-random

Folder: config.json (Dinov2Model, use_swiglu_ffn true, image_size 518, patch 14, layer-scale), model.safetensors
(F32, sorted names, written one tensor at a time so memory stays at one tensor), preprocessor_config.json
(BitImageProcessor: shortest edge 256 bicubic, crop 224). Per layer: norm1, attention.attention.{query,key,value},
attention.output.dense, layer_scale1.lambda1, norm2, mlp.weights_in [2h, D], mlp.weights_out [D, h],
layer_scale2.lambda1; h = (int(int(D * mlp_ratio) * 2 / 3) + 7) // 8 * 8. Values: N(0, 0.02) matrices and
tokens, LayerNorm 1 / 0, biases 0, layer-scales 0.1, seeded.
Sizes: giant 1536/40/24 h 4096 (1.14 G parameters, 4.5 GB), tiny 64/2/2 h 176.
"""
import argparse
import json
import os
import struct
import time
from collections import OrderedDict

import numpy as np

SIZES = {"giant": (1536, 40, 24), "tiny": (64, 2, 2)}  # D, layers, heads
MLP_RATIO = 4
PATCH = 14
IMAGE = 518


def gated_width(dim):
    return (int(int(dim * MLP_RATIO) * 2 / 3) + 7) // 8 * 8


def tensor_table(dim, depth):
    """name -> (shape, fill): fill 'normal', 'ones', 'zeros' or 'scale'."""
    h, grid = gated_width(dim), IMAGE // PATCH
    t = OrderedDict()
    t["embeddings.cls_token"] = ((1, 1, dim), "normal")
    t["embeddings.mask_token"] = ((1, dim), "zeros")
    t["embeddings.position_embeddings"] = ((1, 1 + grid * grid, dim), "normal")
    t["embeddings.patch_embeddings.projection.weight"] = ((dim, 3, PATCH, PATCH), "normal")
    t["embeddings.patch_embeddings.projection.bias"] = ((dim,), "zeros")
    for i in range(depth):
        p = f"encoder.layer.{i}."
        for norm in ("norm1", "norm2"):
            t[p + norm + ".weight"], t[p + norm + ".bias"] = ((dim,), "ones"), ((dim,), "zeros")
        for proj in ("attention.attention.query", "attention.attention.key", "attention.attention.value",
                     "attention.output.dense"):
            t[p + proj + ".weight"], t[p + proj + ".bias"] = ((dim, dim), "normal"), ((dim,), "zeros")
        t[p + "layer_scale1.lambda1"], t[p + "layer_scale2.lambda1"] = ((dim,), "scale"), ((dim,), "scale")
        t[p + "mlp.weights_in.weight"], t[p + "mlp.weights_in.bias"] = ((2 * h, dim), "normal"), ((2 * h,), "zeros")
        t[p + "mlp.weights_out.weight"], t[p + "mlp.weights_out.bias"] = ((dim, h), "normal"), ((dim,), "zeros")
    t["layernorm.weight"], t["layernorm.bias"] = ((dim,), "ones"), ((dim,), "zeros")
    return OrderedDict(sorted(t.items()))


def values(rng, shape, fill):
    if fill == "normal":
        return rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
    return np.full(shape, {"ones": 1.0, "zeros": 0.0, "scale": 0.1}[fill], dtype=np.float32)


def write_safetensors(path, table, seed):
    header, offset = OrderedDict([("__metadata__", {"format": "pt"})]), 0
    for name, (shape, _) in table.items():
        size = 4 * int(np.prod(shape))
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for shape, fill in table.values():
            f.write(values(rng, shape, fill).astype("<f4", copy=False).tobytes())
    return 8 + len(text) + offset


def config(dim, depth, heads):
    return OrderedDict([
        ("architectures", ["Dinov2Model"]), ("attention_probs_dropout_prob", 0.0), ("drop_path_rate", 0.0),
        ("hidden_act", "gelu"), ("hidden_dropout_prob", 0.0), ("hidden_size", dim), ("image_size", IMAGE),
        ("initializer_range", 0.02), ("layer_norm_eps", 1e-6), ("layerscale_value", 1.0), ("mlp_ratio", MLP_RATIO),
        ("model_type", "dinov2"), ("num_attention_heads", heads), ("num_channels", 3), ("num_hidden_layers", depth),
        ("patch_size", PATCH), ("qkv_bias", True), ("torch_dtype", "float32"), ("use_swiglu_ffn", True)])


PREPROCESSOR = OrderedDict([
    ("crop_size", {"height": 224, "width": 224}), ("do_center_crop", True), ("do_convert_rgb", True),
    ("do_normalize", True), ("do_rescale", True), ("do_resize", True), ("image_mean", [0.485, 0.456, 0.406]),
    ("image_processor_type", "BitImageProcessor"), ("image_std", [0.229, 0.224, 0.225]), ("resample", 3),
    ("rescale_factor", 1 / 255), ("size", {"shortest_edge": 256})])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=sorted(SIZES), default="giant")
    ap.add_argument("-o", "--output", required=True, help="folder to write (created)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    dim, depth, heads = SIZES[args.size]
    os.makedirs(args.output, exist_ok=True)
    start = time.time()
    table = tensor_table(dim, depth)
    size = write_safetensors(os.path.join(args.output, "model.safetensors"), table, args.seed)
    for name, obj in (("config.json", config(dim, depth, heads)), ("preprocessor_config.json", PREPROCESSOR)):
        with open(os.path.join(args.output, name), "w") as f:
            json.dump(obj, f, indent=2)
            f.write("\n")
    params = sum(int(np.prod(s)) for s, _ in table.values())
    print(f"{args.output}: {args.size} D {dim} L {depth} H {heads} h {gated_width(dim)}, {len(table)} tensors, "
          f"{params / 1e6:.1f} M parameters, {size / 2**30:.2f} GiB, {time.time() - start:.1f} s")


if __name__ == "__main__":
    main()
