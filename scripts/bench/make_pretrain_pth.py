#!/usr/bin/python3
"""Write a random-weight I-JEPA or V-JEPA (v1) pretraining checkpoint in the released file's layout, for
timing `jepa convert` and the pretraining predictor at real size (the released files are not downloadable here).

    /usr/bin/python3 scripts/bench/make_pretrain_pth.py --size ijepa-vitg16 -o tmp/ijepa_vitg16_random.pth.tar

Layout (families.md §1.3, §2.2): torch.save of {encoder, predictor, target_encoder, epoch}; names 'module.'
(I-JEPA) or 'module.backbone.' (V-JEPA). Encoder: patch_embed.proj, pos_embed (the sincos table the repos
build: I-JEPA 2-D, V-JEPA 3-D uniform_power), blocks.{i}.*, norm. Predictor: predictor_embed, mask_token
(I-JEPA) or mask_tokens.{0,1} (V-JEPA), predictor_pos_embed (the same kind of table at 384), predictor_blocks.{i}.*
(mlp_ratio 4), predictor_norm, predictor_proj. `target_encoder` is a separate copy of `encoder` unless
--shared-encoder (torch.save then stores it once). Values: N(0, 0.02) matrices, LayerNorm 1 / 0, seeded.
Heads are not stored: convert with the --n-head printed at the end (the predictor's are the encoder's).
"""
import argparse
import os
import sys
import time
from collections import OrderedDict

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from positions import sincos_2d_ijepa, sincos_3d_vjepa  # noqa: E402

PRED_WIDTH = 384
# family, D, depth, heads (not stored), F, patch, img, frames (1: image), predictor depth
SIZES = {
    "ijepa-vitg16": ("ijepa", 1408, 40, 16, 6144, 16, 224, 1, 16),
    "ijepa-vith14": ("ijepa", 1280, 32, 16, 5120, 14, 224, 1, 12),
    "ijepa-vith16-448": ("ijepa", 1280, 32, 16, 5120, 16, 448, 1, 12),
    "ijepa-tiny": ("ijepa", 64, 4, 2, 128, 16, 64, 1, 2),
    "vjepa-vitl16": ("vjepa", 1024, 24, 16, 4096, 16, 224, 16, 12),
    "vjepa-vith16": ("vjepa", 1280, 32, 16, 5120, 16, 224, 16, 12),
    "vjepa-vith16-384": ("vjepa", 1280, 32, 16, 5120, 16, 384, 16, 12),
    "vjepa-tiny": ("vjepa", 64, 4, 2, 128, 16, 64, 4, 2),
}
TUBELET = 2


class Draw:
    def __init__(self, seed):
        self.gen = torch.Generator().manual_seed(seed)

    def normal(self, *shape, std=0.02):
        return torch.randn(*shape, generator=self.gen) * std

    def block(self, out, prefix, dim, ffn):
        out[f"{prefix}.norm1.weight"], out[f"{prefix}.norm1.bias"] = torch.ones(dim), torch.zeros(dim)
        out[f"{prefix}.attn.qkv.weight"], out[f"{prefix}.attn.qkv.bias"] = self.normal(3 * dim, dim), torch.zeros(3 * dim)
        out[f"{prefix}.attn.proj.weight"], out[f"{prefix}.attn.proj.bias"] = self.normal(dim, dim), torch.zeros(dim)
        out[f"{prefix}.norm2.weight"], out[f"{prefix}.norm2.bias"] = torch.ones(dim), torch.zeros(dim)
        out[f"{prefix}.mlp.fc1.weight"], out[f"{prefix}.mlp.fc1.bias"] = self.normal(ffn, dim), torch.zeros(ffn)
        out[f"{prefix}.mlp.fc2.weight"], out[f"{prefix}.mlp.fc2.bias"] = self.normal(dim, ffn), torch.zeros(dim)


def table(family, dim, grid, depth):
    t = sincos_2d_ijepa(dim, grid) if family == "ijepa" else sincos_3d_vjepa(dim, grid, depth)
    return torch.from_numpy(t.astype(np.float32))[None]


def encoder(draw, family, dim, depth, ffn, patch, grid, grid_t):
    w = OrderedDict()
    kernel = (dim, 3, patch, patch) if family == "ijepa" else (dim, 3, TUBELET, patch, patch)
    w["patch_embed.proj.weight"], w["patch_embed.proj.bias"] = draw.normal(*kernel), torch.zeros(dim)
    w["pos_embed"] = table(family, dim, grid, grid_t)
    for i in range(depth):
        draw.block(w, f"blocks.{i}", dim, ffn)
    w["norm.weight"], w["norm.bias"] = torch.ones(dim), torch.zeros(dim)
    return w


def predictor(draw, family, dim, depth, grid, grid_t):
    w = OrderedDict()
    w["predictor_embed.weight"], w["predictor_embed.bias"] = draw.normal(PRED_WIDTH, dim), torch.zeros(PRED_WIDTH)
    for name in ["mask_token"] if family == "ijepa" else ["mask_tokens.0", "mask_tokens.1"]:
        w[name] = draw.normal(1, 1, PRED_WIDTH)
    w["predictor_pos_embed"] = table(family, PRED_WIDTH, grid, grid_t)
    for i in range(depth):
        draw.block(w, f"predictor_blocks.{i}", PRED_WIDTH, 4 * PRED_WIDTH)
    w["predictor_norm.weight"], w["predictor_norm.bias"] = torch.ones(PRED_WIDTH), torch.zeros(PRED_WIDTH)
    w["predictor_proj.weight"], w["predictor_proj.bias"] = draw.normal(dim, PRED_WIDTH), torch.zeros(dim)
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=sorted(SIZES), default="ijepa-vitg16")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--shared-encoder", action="store_true", help="`target_encoder` shares encoder's storage")
    ap.add_argument("--seed", type=int, default=23)
    args = ap.parse_args()
    family, dim, depth, heads, ffn, patch, img, frames, p_depth = SIZES[args.size]
    grid, grid_t = img // patch, max(1, frames // TUBELET)
    prefix = "module." if family == "ijepa" else "module.backbone."
    t0 = time.time()
    draw = Draw(args.seed)
    enc = encoder(draw, family, dim, depth, ffn, patch, grid, grid_t)
    target = enc if args.shared_encoder else OrderedDict((k, v.clone()) for k, v in enc.items())
    pred = predictor(draw, family, dim, p_depth, grid, grid_t)
    pre = lambda w: OrderedDict((prefix + k, v) for k, v in w.items())  # noqa: E731
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    torch.save(OrderedDict([("encoder", pre(enc)), ("predictor", pre(pred)), ("target_encoder", pre(target)),
                            ("epoch", 0)]), args.output)
    n_enc = sum(v.numel() for v in enc.values())
    n_pred = sum(v.numel() for v in pred.values())
    tokens = grid_t * grid * grid
    print(f"{args.output}: {os.path.getsize(args.output) / 2**30:.2f} GiB, {family} encoder {n_enc / 1e6:.1f} M params "
          f"(D {dim}, depth {depth}, {tokens} tokens; convert with --n-head {heads}"
          f"{' --entry encoder' if family == 'vjepa' else ''}), predictor {n_pred / 1e6:.1f} M params "
          f"(depth {p_depth}, {PRED_WIDTH} wide), {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
