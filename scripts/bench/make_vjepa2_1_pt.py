#!/usr/bin/python3
"""Write a random-weight V-JEPA 2.1 checkpoint in the released file's layout, for timing `jepa convert` and the
predictor at real size (the released g/G files are not downloadable here).

    /usr/bin/python3 scripts/bench/make_vjepa2_1_pt.py --size G -o tmp/vjepa2_1_vitG_random.pt

Layout (families.md §4.2-4.5, app/vjepa_2_1): torch.save of {encoder, predictor, target_encoder, epoch}, names
'module.backbone.*'. Encoder: patch_embed(_img).proj, img/video_mod_embed, blocks.{i}.*, norms_block.{0..3}.
Predictor with n_output_distillation 4: predictor_embed.{0,2} (4D -> D -> 384), mask_tokens.{0..7},
img/video_mod_embed, predictor_blocks.{i}.*, predictor_norm, predictor_proj and predictor_proj_context (384 -> 4D).
`encoder` is a separate copy of `target_encoder` unless --shared-encoder (then torch.save stores it once and
the file is half the size). Values: N(0, 0.02) matrices, LayerNorm 1 / 0, seeded.
Sizes: G 1664/48/26 F 8192 (about 15 GB with both encoders), g 1408/40/22 F 6144, tiny 64/12/2 F 128.
"""
import argparse
import os
import time
from collections import OrderedDict

import torch

SIZES = {  # D, depth, encoder heads (not stored), F; predictor depth, width, F
    "G": (1664, 48, 26, 8192, 24, 384, 1536),
    "g": (1408, 40, 22, 6144, 24, 384, 1536),
    "tiny": (64, 12, 2, 128, 4, 32, 64),
}
N_LEVELS = 4
N_MASK_TOKENS = 8
PATCH = 16


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


def encoder(draw, dim, depth, ffn):
    w = OrderedDict()
    w["patch_embed.proj.weight"], w["patch_embed.proj.bias"] = draw.normal(dim, 3, 2, PATCH, PATCH), torch.zeros(dim)
    w["patch_embed_img.proj.weight"], w["patch_embed_img.proj.bias"] = draw.normal(dim, 3, 1, PATCH, PATCH), torch.zeros(dim)
    w["img_mod_embed"], w["video_mod_embed"] = draw.normal(1, 1, dim), draw.normal(1, 1, dim)
    for i in range(depth):
        draw.block(w, f"blocks.{i}", dim, ffn)
    for k in range(N_LEVELS):
        w[f"norms_block.{k}.weight"], w[f"norms_block.{k}.bias"] = torch.ones(dim), torch.zeros(dim)
    return w


def predictor(draw, dim, depth, width, ffn):
    w = OrderedDict()
    w["predictor_embed.0.weight"], w["predictor_embed.0.bias"] = draw.normal(dim, N_LEVELS * dim), torch.zeros(dim)
    w["predictor_embed.2.weight"], w["predictor_embed.2.bias"] = draw.normal(width, dim), torch.zeros(width)
    for k in range(N_MASK_TOKENS):
        w[f"mask_tokens.{k}"] = draw.normal(1, 1, width)
    w["img_mod_embed"], w["video_mod_embed"] = draw.normal(1, 1, width), draw.normal(1, 1, width)
    for i in range(depth):
        draw.block(w, f"predictor_blocks.{i}", width, ffn)
    w["predictor_norm.weight"], w["predictor_norm.bias"] = torch.ones(width), torch.zeros(width)
    for name in ("predictor_proj", "predictor_proj_context"):
        w[f"{name}.weight"], w[f"{name}.bias"] = draw.normal(N_LEVELS * dim, width), torch.zeros(N_LEVELS * dim)
    return w


def prefixed(w):
    return OrderedDict((f"module.backbone.{k}", v) for k, v in w.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=sorted(SIZES), default="G")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--shared-encoder", action="store_true", help="`encoder` shares target_encoder's storage")
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args()
    dim, depth, heads, ffn, p_depth, p_width, p_ffn = SIZES[args.size]
    t0 = time.time()
    draw = Draw(args.seed)
    target = encoder(draw, dim, depth, ffn)
    student = target if args.shared_encoder else OrderedDict((k, v.clone()) for k, v in target.items())
    pred = predictor(draw, dim, p_depth, p_width, p_ffn)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    torch.save(OrderedDict([("encoder", prefixed(student)), ("predictor", prefixed(pred)),
                            ("target_encoder", prefixed(target)), ("epoch", 0)]), args.output)
    n_enc = sum(v.numel() for v in target.values())
    n_pred = sum(v.numel() for v in pred.values())
    print(f"{args.output}: {os.path.getsize(args.output) / 2**30:.2f} GiB, encoder {n_enc / 1e6:.1f} M params "
          f"(D {dim}, depth {depth}; convert with --n-head {heads}), predictor {n_pred / 1e6:.1f} M params "
          f"(depth {p_depth}, {p_width} wide), {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
