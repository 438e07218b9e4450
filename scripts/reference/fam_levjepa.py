"""levjepa: LeVJEPA encoder in the galilai-group HF folder layout (LeVJEPAModel remote code).

Tubelet 1 (one token per frame per patch), CLS prepended after the patch embedding, 3-D RoPE with the
tiled layout on patch tokens only (CLS unrotated), block-causal attention (patch q sees patch k iff
frame(q) >= frame(k); CLS row open, CLS column closed to patch queries), final LayerNorm, feature = CLS.
The remote code itself was not readable here: these semantics follow families.md §7 (two independent
ports agree). Negative control: the same weights without the mask.
"""
import os
from collections import OrderedDict

import numpy as np
import torch

import common
from common import f64
from layouts import prefixed
from positions import block_causal_allowed, rope_axis_dim
from rope_encoder import rope_for_grid, run_blocks

SEED = 6001
EPS = 1e-6
HP = {"embed_dim": 128, "n_layer": 2, "n_head": 2, "head_dim": 64, "mlp_ratio": 1.0, "ffn_dim": 128,
      "patch": 16, "tubelet": 1, "img_size": 48, "frames": 4, "eps": EPS, "rope_layout": "tiled",
      "rope_axis_dim": rope_axis_dim(64), "rope_theta": 10000.0, "cls_token": True, "attn_mode": "block_causal"}


def make_weights():
    dim, patch = HP["embed_dim"], HP["patch"]
    wm = common.WeightMaker(SEED)
    w = OrderedDict()
    w["cls_token"] = wm.normal((1, 1, dim), 0.5)
    w["patch_embed.proj.weight"] = wm.normal((dim, 3, 1, patch, patch), 1.0 / np.sqrt(3 * patch * patch))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    for i in range(HP["n_layer"]):
        for k, v in common.make_block_weights(wm, dim, HP["ffn_dim"]).items():
            w[f"blocks.{i}.{k}"] = v
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    return w


def grid_of(clip):
    _, _, frames, height, width = clip.shape
    return frames // HP["tubelet"], height // HP["patch"], width // HP["patch"]


def reference(weights, clip, masked):
    patches = common.patch_embed_3d(clip, weights["patch_embed.proj.weight"], weights["patch_embed.proj.bias"])
    x = torch.cat([f64(weights["cls_token"])[0], patches], dim=0)
    grid = grid_of(clip)
    cos_sin = rope_for_grid(grid, HP["head_dim"], "tiled", n_prefix=1)
    allowed = torch.from_numpy(block_causal_allowed(*grid, n_prefix=1)) if masked else None
    x = run_blocks(x, weights, n_layer=HP["n_layer"], n_head=HP["n_head"], eps=EPS, cos_sin=cos_sin,
                   allowed=allowed)
    return common.layer_norm(x, weights["norm.weight"], weights["norm.bias"], EPS)[None]


def hf_config():
    # Keys the jepa.cpp converter reads from the hub config (the remote configuration class was not read).
    return OrderedDict([
        ("architectures", ["LeVJEPAModel"]), ("attn_mode", HP["attn_mode"]), ("depth", HP["n_layer"]),
        ("embed_dim", HP["embed_dim"]), ("img_size", HP["img_size"]), ("in_chans", 3),
        ("mlp_ratio", HP["mlp_ratio"]), ("model_type", "levjepa"), ("num_frames", HP["frames"]),
        ("num_heads", HP["n_head"]), ("patch_size", HP["patch"]), ("qkv_bias", True), ("torch_dtype", "float32"),
        ("tubelet_size", HP["tubelet"]), ("use_rope", True)])


def generate():
    out_dir = common.family_dir("levjepa")
    weights = make_weights()
    common.write_safetensors(os.path.join(out_dir, "model.safetensors"), prefixed(weights, "encoder."))
    common.write_json(os.path.join(out_dir, "config.json"), hf_config())
    clip = common.make_input(SEED + 1, (1, 3, HP["frames"], HP["img_size"], HP["img_size"]))
    hidden = reference(weights, f64(clip), masked=True)
    unmasked = reference(weights, f64(clip), masked=False)
    common.save_npy(os.path.join(out_dir, "input.npy"), clip)
    common.save_f32(os.path.join(out_dir, "last_hidden_state.npy"), hidden)
    common.save_f32(os.path.join(out_dir, "pooled.npy"), hidden[:, 0])
    common.save_f32(os.path.join(out_dir, "last_hidden_state_unmasked.npy"), unmasked)
    common.save_f32(os.path.join(out_dir, "pooled_unmasked.npy"), unmasked[:, 0])
    return {
        "family": "levjepa",
        "source_layout": "HF folder (LeVJEPAModel, remote code): config.json + model.safetensors (F32), names "
                         "'encoder.' + cls_token, patch_embed.proj.*, blocks.{i}.*, norm.*; no preprocessor_config",
        "checkpoint": ["config.json", "model.safetensors"],
        "hparams": dict(HP, patch_grid=list(grid_of(clip))),
        "input": "input.npy", "input_shape": list(clip.shape),
        "input_layout": "NCTHW float32, already preprocessed (the HF remote model takes B,F,C,H,W and permutes)",
        "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
        "pooled": "pooled.npy", "pooled_shape": [1, HP["embed_dim"]],
        "token_order": "CLS, then patches t-major (frame), h, w",
        "pooling": "CLS row after the final LayerNorm",
        "rope": "tiled layout as V-JEPA 2 (hd 64: [0,20) t, [20,40) h, [40,60) w, [60,64) untouched); CLS row "
                "identity (cos 1, sin 0); patch positions from the patch index (CLS excluded), t = frame",
        "mask": f"bool [{hidden.shape[1]}, {hidden.shape[1]}] = positions.block_causal_allowed"
                f"{tuple(grid_of(clip))} with n_prefix=1 (True = attend); see ../mask/",
        "reference": "own float64 code (common.vit_block + positions), F.conv3d float64",
        "unverified": "remote modeling_levjepa.py not read; semantics from families.md §7 (jepa.cpp and LibreYOLO "
                      "ports); config.json keys are those the jepa.cpp converter reads",
        "negative_controls": {
            "last_hidden_state_unmasked.npy": "same weights, full attention",
            "unmasked_cosine": common.cosine_stats(hidden.numpy(), unmasked.numpy()),
            "unmasked_pooled_cosine": common.cosine_stats(hidden[:, 0].numpy(), unmasked[:, 0].numpy())},
    }
