"""ijepa: I-JEPA encoder in the transformers IJepaModel folder layout (the HF port of the `encoder` entry).

No CLS; fixed 2-D sincos table stored as embeddings.position_embeddings; feature = mean of patch tokens.
Reference = strided Conv2d + the stored table + torchvision's Encoder blocks in float64, cross-checked
against the fused float64 block of common.py.
"""
import os
from collections import OrderedDict

import numpy as np
import torch

import common
import torchvision_vit
from common import f64
from layouts import hf_vit
from positions import sincos_2d_ijepa

SEED = 2001
EPS = 1e-6
HP = {"embed_dim": 48, "n_layer": 2, "n_head": 2, "head_dim": 24, "ffn_dim": 192, "patch": 14, "img_size": 42,
      "eps": EPS}


def make_weights():
    dim, patch, grid = HP["embed_dim"], HP["patch"], HP["img_size"] // HP["patch"]
    wm = common.WeightMaker(SEED)
    w = OrderedDict()
    w["patch_embed.proj.weight"] = wm.normal((dim, 3, patch, patch), 1.0 / np.sqrt(3 * patch * patch))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    w["pos_embed"] = torch.from_numpy(sincos_2d_ijepa(dim, grid).astype(np.float32))[None]
    for i in range(HP["n_layer"]):
        for k, v in common.make_block_weights(wm, dim, HP["ffn_dim"]).items():
            w[f"blocks.{i}.{k}"] = v
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    return w


def reference(weights, pixels):
    tokens = common.patch_embed_2d(pixels, weights["patch_embed.proj.weight"], weights["patch_embed.proj.bias"])
    hidden = torchvision_vit.encode_tokens_with_table(weights, tokens, n_layer=HP["n_layer"], n_head=HP["n_head"],
                                                      ffn_dim=HP["ffn_dim"], eps=EPS)
    x = tokens + f64(weights["pos_embed"])[0]
    for i in range(HP["n_layer"]):
        x = common.vit_block(x, common.block_params(weights, f"blocks.{i}."), HP["n_head"], EPS)
    own = common.layer_norm(x, weights["norm.weight"], weights["norm.bias"], EPS)
    return hidden, common.max_abs_diff(hidden[0].numpy(), own.numpy())


def hf_config():
    return OrderedDict([
        ("architectures", ["IJepaModel"]), ("attention_probs_dropout_prob", 0.0), ("hidden_act", "gelu"),
        ("hidden_dropout_prob", 0.0), ("hidden_size", HP["embed_dim"]), ("image_size", HP["img_size"]),
        ("initializer_range", 0.02), ("intermediate_size", HP["ffn_dim"]), ("layer_norm_eps", EPS),
        ("model_type", "ijepa"), ("num_attention_heads", HP["n_head"]), ("num_channels", 3),
        ("num_hidden_layers", HP["n_layer"]), ("patch_size", HP["patch"]), ("qkv_bias", True),
        ("torch_dtype", "float32")])


def preprocessor_config():
    size = HP["img_size"]
    return OrderedDict([
        ("do_normalize", True), ("do_rescale", True), ("do_resize", True), ("image_mean", [0.5, 0.5, 0.5]),
        ("image_processor_type", "ViTImageProcessor"), ("image_std", [0.5, 0.5, 0.5]), ("resample", 2),
        ("rescale_factor", 1 / 255), ("size", {"height": size, "width": size})])


def generate():
    out_dir = common.family_dir("ijepa")
    weights = make_weights()
    common.write_safetensors(os.path.join(out_dir, "model.safetensors"), hf_vit(weights, HP["n_layer"], with_cls=False))
    common.write_json(os.path.join(out_dir, "config.json"), hf_config())
    common.write_json(os.path.join(out_dir, "preprocessor_config.json"), preprocessor_config())
    pixels = common.make_input(SEED + 1, (1, 3, HP["img_size"], HP["img_size"]))
    hidden, selfcheck = reference(weights, torch.from_numpy(pixels))
    common.save_npy(os.path.join(out_dir, "input.npy"), pixels)
    common.save_f32(os.path.join(out_dir, "last_hidden_state.npy"), hidden)
    common.save_f32(os.path.join(out_dir, "pooled.npy"), hidden.mean(1))
    grid = HP["img_size"] // HP["patch"]
    return {
        "family": "ijepa",
        "source_layout": "HF transformers folder (IJepaModel, add_pooling_layer=False): config.json + "
                         "model.safetensors (F32) + preprocessor_config.json (ViTImageProcessor)",
        "checkpoint": ["config.json", "model.safetensors", "preprocessor_config.json"],
        "hparams": dict(HP, patch_grid=[grid, grid], pos="sincos2d [emb_w | emb_h], stored as "
                        "embeddings.position_embeddings"),
        "input": "input.npy", "input_shape": list(pixels.shape),
        "input_layout": "NCHW float32, already preprocessed",
        "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
        "pooled": "pooled.npy", "pooled_shape": [1, HP["embed_dim"]],
        "token_order": "patches row-major (h, then w); no CLS",
        "pooling": "mean over all patch tokens after the final LayerNorm (IJepaForImageClassification)",
        "reference": "F.conv2d(float64) + stored table + torchvision Encoder blocks (float64)",
        "self_checks": {"torchvision_vs_own_block_max_abs": selfcheck},
    }
