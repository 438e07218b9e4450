"""vjepa: V-JEPA (v1) encoder as a facebookresearch/jepa `.pth.tar` (torch.save of a dict).

Top-level keys `encoder`, `target_encoder`, `epoch`; names prefixed `module.backbone.`. The reference uses
`target_encoder` (what the evals load). `encoder` shares every tensor with it except the final norm and
one block bias, so reading the wrong entry changes the output. Positions: the stored 3-D sincos table
(uniform_power=True; D=64 makes the per-axis width 22, 66 columns, cut to 64 as at ViT-L/H).
"""
import os
from collections import OrderedDict

import numpy as np
import torch

import common
import torchvision_vit
from common import f64
from layouts import prefixed, variant_sharing_storage
from positions import sincos_3d_vjepa

SEED = 3001
EPS = 1e-6
HP = {"embed_dim": 64, "n_layer": 2, "n_head": 2, "head_dim": 32, "ffn_dim": 128, "patch": 16, "tubelet": 2,
      "img_size": 32, "frames": 4, "eps": EPS, "uniform_power": True}
DECOY_DIFFERS = ("norm.weight", "norm.bias", "blocks.0.attn.proj.bias")


def make_weights():
    dim, patch, tub = HP["embed_dim"], HP["patch"], HP["tubelet"]
    grid, depth = HP["img_size"] // patch, HP["frames"] // tub
    wm = common.WeightMaker(SEED)
    w = OrderedDict()
    w["pos_embed"] = torch.from_numpy(sincos_3d_vjepa(dim, grid, depth).astype(np.float32))[None]
    w["patch_embed.proj.weight"] = wm.normal((dim, 3, tub, patch, patch), 1.0 / np.sqrt(3 * tub * patch * patch))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    for i in range(HP["n_layer"]):
        for k, v in common.make_block_weights(wm, dim, HP["ffn_dim"]).items():
            w[f"blocks.{i}.{k}"] = v
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    decoy_rng = common.WeightMaker(SEED + 7)
    decoy = variant_sharing_storage(w, DECOY_DIFFERS, lambda t: t + decoy_rng.normal(tuple(t.shape), 0.2))
    return w, decoy


def reference(weights, clip):
    tokens = common.patch_embed_3d(clip, weights["patch_embed.proj.weight"], weights["patch_embed.proj.bias"])
    hidden = torchvision_vit.encode_tokens_with_table(weights, tokens, n_layer=HP["n_layer"], n_head=HP["n_head"],
                                                      ffn_dim=HP["ffn_dim"], eps=EPS)
    x = tokens + f64(weights["pos_embed"])[0]
    for i in range(HP["n_layer"]):
        x = common.vit_block(x, common.block_params(weights, f"blocks.{i}."), HP["n_head"], EPS)
    own = common.layer_norm(x, weights["norm.weight"], weights["norm.bias"], EPS)
    return hidden, common.max_abs_diff(hidden[0].numpy(), own.numpy())


def generate():
    out_dir = common.family_dir("vjepa")
    weights, decoy = make_weights()
    ckpt_name = "vjepa_fixture.pth.tar"
    common.torch_save_deterministic(OrderedDict([
        ("encoder", prefixed(decoy, "module.backbone.")),
        ("target_encoder", prefixed(weights, "module.backbone.")),
        ("epoch", 300)]), os.path.join(out_dir, ckpt_name))
    clip = common.make_input(SEED + 1, (1, 3, HP["frames"], HP["img_size"], HP["img_size"]))
    hidden, selfcheck = reference(weights, torch.from_numpy(clip))
    decoy_hidden, _ = reference(decoy, torch.from_numpy(clip))
    common.save_npy(os.path.join(out_dir, "input.npy"), clip)
    common.save_f32(os.path.join(out_dir, "last_hidden_state.npy"), hidden)
    common.save_f32(os.path.join(out_dir, "pooled.npy"), hidden.mean(1))
    grid, depth = HP["img_size"] // HP["patch"], HP["frames"] // HP["tubelet"]
    width = int(np.ceil(HP["embed_dim"] / 6) * 2)
    return {
        "family": "vjepa",
        "source_layout": "facebookresearch/jepa .pth.tar (torch zip pickle): {encoder, target_encoder, epoch}, "
                         "names 'module.backbone.' + patch_embed.proj.*, pos_embed, blocks.{i}.*, norm.*",
        "checkpoint": [ckpt_name],
        "checkpoint_entry_used": "target_encoder",
        "checkpoint_omitted": "predictor, opt, scaler (not needed by an encoder converter)",
        "hparams": dict(HP, patch_grid=[depth, grid, grid],
                        pos=f"sincos3d [emb_t | emb_h | emb_w], each {width} wide -> {3 * width} cut to "
                            f"{HP['embed_dim']}; stored as pos_embed"),
        "input": "input.npy", "input_shape": list(clip.shape),
        "input_layout": "NCTHW float32, already preprocessed",
        "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
        "pooled": "pooled.npy", "pooled_shape": [1, HP["embed_dim"]],
        "token_order": "t-major (tubelet index), then h, then w; no CLS",
        "pooling": "mean of patch tokens (the model has no pooling; V-JEPA uses an attentive probe)",
        "reference": "F.conv3d(float64) + stored table + torchvision Encoder blocks (float64)",
        "self_checks": {"torchvision_vs_own_block_max_abs": selfcheck},
        "negative_controls": {"wrong_entry_encoder_vs_target_encoder_cosine":
                              common.cosine_stats(hidden.numpy(), decoy_hidden.numpy())},
    }
