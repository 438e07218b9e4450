"""A tiny V-JEPA 2.1 .pt whose predictor reads 4 hierarchy levels (predictor_embed.0 takes 4·D) over an encoder
of depth 2, for which Meta's VisionTransformer defines no hierarchy layers: the converter must refuse it.

Run with Debian's interpreter:  /usr/bin/python3 packages/convert/test/data/make_vjepa2_1_levels_fixture.py
"""
import os
from collections import OrderedDict

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
D, F, P, DP, FP, LEVELS = 16, 16, 4, 16, 16, 4
gen = torch.Generator().manual_seed(3)


def rnd(*shape):
    return torch.randn(*shape, generator=gen) * 0.1


def block(out, prefix, d, f):
    for name, shape in (("norm1", (d,)), ("norm2", (d,))):
        out[f"{prefix}.{name}.weight"], out[f"{prefix}.{name}.bias"] = 1 + rnd(*shape), rnd(*shape)
    for name, rows, cols in (("attn.qkv", 3 * d, d), ("attn.proj", d, d), ("mlp.fc1", f, d), ("mlp.fc2", d, f)):
        out[f"{prefix}.{name}.weight"], out[f"{prefix}.{name}.bias"] = rnd(rows, cols), rnd(rows)


enc = OrderedDict()
enc["patch_embed.proj.weight"], enc["patch_embed.proj.bias"] = rnd(D, 3, 2, P, P), rnd(D)
enc["patch_embed_img.proj.weight"], enc["patch_embed_img.proj.bias"] = rnd(D, 3, 1, P, P), rnd(D)
enc["img_mod_embed"], enc["video_mod_embed"] = rnd(1, 1, D), rnd(1, 1, D)
for i in range(2):
    block(enc, f"blocks.{i}", D, F)
for k in range(LEVELS):
    enc[f"norms_block.{k}.weight"], enc[f"norms_block.{k}.bias"] = 1 + rnd(D), rnd(D)

pred = OrderedDict()
pred["predictor_embed.0.weight"], pred["predictor_embed.0.bias"] = rnd(D, LEVELS * D), rnd(D)
pred["predictor_embed.2.weight"], pred["predictor_embed.2.bias"] = rnd(DP, D), rnd(DP)
for k in range(8):
    pred[f"mask_tokens.{k}"] = rnd(1, 1, DP)
block(pred, "predictor_blocks.0", DP, FP)
pred["predictor_norm.weight"], pred["predictor_norm.bias"] = 1 + rnd(DP), rnd(DP)
pred["predictor_proj.weight"], pred["predictor_proj.bias"] = rnd(LEVELS * D, DP), rnd(LEVELS * D)

prefixed = lambda w: OrderedDict((f"module.backbone.{k}", v) for k, v in w.items())  # noqa: E731
torch.save(OrderedDict([("encoder", prefixed(enc)), ("predictor", prefixed(pred)), ("target_encoder", prefixed(enc)),
                        ("epoch", 1)]), os.path.join(HERE, "meta-vjepa2_1-untabled-levels.pt"))
