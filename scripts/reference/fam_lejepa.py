"""hfvit_lejepa: the LeJEPA community checkpoint layout (OK-AI lejepa-vits16, lite_ssl ViTv2), family hfvit.

Folder: config.json (model_type "vitv2") + model.safetensors with timm/DINOv2 fused names under 'backbone.'
(cls_token, pos_embed with the CLS row, patch_embed.proj, blocks.{i}.{norm1, attn.qkv, attn.proj, norm2,
mlp.fc1, mlp.fc2}, norm) plus the tensors a converter must skip (mask_token, cva_module_proj.*) +
preprocessor_config.json. No layer-scale (init_values null), no registers, LayerNorm eps 1e-6.
The layout is from third-party ports (families.md §6.1 [3p]); the remote code was not read.
Reference = torchvision's VisionTransformer blocks in float64.
"""
import os
from collections import OrderedDict

import numpy as np
import torch

import common
import torchvision_vit
from fam_hfvit import preprocessor_config
from layouts import prefixed

SEED = 1101
EPS = 1e-6
HP = {"embed_dim": 32, "n_layer": 2, "n_head": 2, "head_dim": 16, "ffn_dim": 128, "patch": 16, "img_size": 48,
      "eps": EPS, "n_register": 0, "layer_scale": False}


def make_weights():
    dim, patch, grid = HP["embed_dim"], HP["patch"], HP["img_size"] // HP["patch"]
    wm = common.WeightMaker(SEED)
    w = OrderedDict()
    w["cls_token"] = wm.normal((1, 1, dim), 0.5)
    w["pos_embed"] = wm.normal((1, 1 + grid * grid, dim), 0.5)
    w["patch_embed.proj.weight"] = wm.normal((dim, 3, patch, patch), 1.0 / np.sqrt(3 * patch * patch))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    for i in range(HP["n_layer"]):
        for k, v in common.make_block_weights(wm, dim, HP["ffn_dim"]).items():
            w[f"blocks.{i}.{k}"] = v
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    unused = OrderedDict()
    unused["mask_token"] = wm.normal((1, 1, dim), 0.02)
    unused["cva_module_proj.mlp.0.weight"], unused["cva_module_proj.mlp.0.bias"] = wm.linear(2 * dim, dim)
    unused["cva_module_proj.last_layer.weight"], _ = wm.linear(16, 2 * dim)
    return w, unused


def hub_config():
    return OrderedDict([
        ("model_type", "vitv2"), ("embed_dim", HP["embed_dim"]), ("depth", HP["n_layer"]),
        ("num_heads", HP["n_head"]), ("mlp_ratio", HP["ffn_dim"] / HP["embed_dim"]), ("patch_size", HP["patch"]),
        ("img_size", HP["img_size"]), ("num_register_tokens", 0), ("init_values", None)])


def generate():
    out_dir = common.family_dir("hfvit_lejepa")
    weights, unused = make_weights()
    tensors = prefixed(weights, "backbone.")
    tensors.update(prefixed(unused, "backbone."))
    common.write_safetensors(os.path.join(out_dir, "model.safetensors"), tensors)
    common.write_json(os.path.join(out_dir, "config.json"), hub_config())
    common.write_json(os.path.join(out_dir, "preprocessor_config.json"), preprocessor_config(HP["img_size"]))
    pixels = common.make_input(SEED + 1, (1, 3, HP["img_size"], HP["img_size"]))
    vit = torchvision_vit.build(weights, image_size=HP["img_size"], patch=HP["patch"], dim=HP["embed_dim"],
                                n_layer=HP["n_layer"], n_head=HP["n_head"], ffn_dim=HP["ffn_dim"], eps=EPS)
    hidden = torchvision_vit.last_hidden_state(vit, torch.from_numpy(pixels))
    common.save_npy(os.path.join(out_dir, "input.npy"), pixels)
    common.save_f32(os.path.join(out_dir, "last_hidden_state.npy"), hidden)
    common.save_f32(os.path.join(out_dir, "pooled.npy"), hidden[:, 0])
    grid = HP["img_size"] // HP["patch"]
    return {
        "family": "hfvit",
        "variant": "lejepa_vitv2",
        "source_layout": "OK-AI ViTv2 folder: config.json (model_type vitv2) + model.safetensors (F32, 'backbone.' + "
                         "timm names) + preprocessor_config.json; backbone.mask_token and backbone.cva_module_proj.* "
                         "are training-only and must be skipped",
        "checkpoint": ["config.json", "model.safetensors", "preprocessor_config.json"],
        "hparams": dict(HP, patch_grid=[grid, grid]),
        "input": "input.npy", "input_shape": list(pixels.shape),
        "input_layout": "NCHW float32, already preprocessed",
        "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
        "pooled": "pooled.npy", "pooled_shape": [1, HP["embed_dim"]],
        "token_order": "CLS, then patches row-major",
        "pooling": "CLS row after the final LayerNorm (lite_ssl 'latent')",
        "reference": "torchvision VisionTransformer blocks in float64",
        "unverified": "the hub file's exact names/prefix and preprocessor come from third-party ports (families.md "
                      "§6.1 [3p]; jepa.cpp converter accepts 'backbone.' or no prefix)",
    }
