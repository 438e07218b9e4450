"""lewm: the LeWorldModel encoder (HF ViTModel, ViT-Ti-style) + its BatchNorm-MLP projector.

Container: `weights.pt` (torch.save of the JEPA module's state dict: `encoder.*` in HF ViTModel names,
`projector.net.{0,1,3}.*`) + `config.json` with the lewm sections. LayerNorm eps 1e-12 (ViTConfig default).
Reference = torchvision's VisionTransformer blocks in float64 (eps 1e-12) for the encoder; the projector
(Linear -> BatchNorm1d eval -> GELU -> Linear) in own float64 code.
"""
import os
from collections import OrderedDict

import numpy as np
import torch

import common
import torchvision_vit
from common import f64
from layouts import hf_vit

SEED = 7001
EPS = 1e-12
BN_EPS = 1e-5
HP = {"embed_dim": 48, "n_layer": 2, "n_head": 3, "head_dim": 16, "ffn_dim": 192, "patch": 14, "img_size": 28,
      "eps": EPS, "projector_hidden": 96, "projector_out": 48, "bn_eps": BN_EPS}


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
    hidden, out = HP["projector_hidden"], HP["projector_out"]
    proj = OrderedDict()
    proj["net.0.weight"], proj["net.0.bias"] = wm.linear(hidden, dim)
    proj["net.1.weight"], proj["net.1.bias"] = wm.layer_norm(hidden)
    proj["net.1.running_mean"] = wm.normal((hidden,), 0.3)
    proj["net.1.running_var"] = wm.uniform((hidden,), 0.5, 2.0)
    proj["net.1.num_batches_tracked"] = torch.tensor(1000, dtype=torch.int64)
    proj["net.3.weight"], proj["net.3.bias"] = wm.linear(out, hidden)
    return w, proj


def projector(cls, p):
    h = common.linear(cls, p["net.0.weight"], p["net.0.bias"])
    h = (h - f64(p["net.1.running_mean"])) / torch.sqrt(f64(p["net.1.running_var"]) + BN_EPS)
    h = h * f64(p["net.1.weight"]) + f64(p["net.1.bias"])
    return common.linear(common.gelu_erf(h), p["net.3.weight"], p["net.3.bias"])


def reference(weights, pixels):
    vit = torchvision_vit.build(weights, image_size=HP["img_size"], patch=HP["patch"], dim=HP["embed_dim"],
                                n_layer=HP["n_layer"], n_head=HP["n_head"], ffn_dim=HP["ffn_dim"], eps=EPS)
    hidden = torchvision_vit.last_hidden_state(vit, pixels)
    x = common.patch_embed_2d(pixels, weights["patch_embed.proj.weight"], weights["patch_embed.proj.bias"])
    x = torch.cat([f64(weights["cls_token"])[0], x], dim=0) + f64(weights["pos_embed"])[0]
    for i in range(HP["n_layer"]):
        x = common.vit_block(x, common.block_params(weights, f"blocks.{i}."), HP["n_head"], EPS)
    own = common.layer_norm(x, weights["norm.weight"], weights["norm.bias"], EPS)
    return hidden, common.max_abs_diff(hidden[0].numpy(), own.numpy())


def lewm_config():
    return OrderedDict([
        ("encoder", OrderedDict([
            ("_target_", "stable_pretraining.backbone.utils.vit_hf"), ("size", "fixture"),
            ("patch_size", HP["patch"]), ("image_size", HP["img_size"]), ("pretrained", False),
            ("hidden_size", HP["embed_dim"]), ("num_hidden_layers", HP["n_layer"]),
            ("num_attention_heads", HP["n_head"]), ("intermediate_size", HP["ffn_dim"])])),
        ("projector", OrderedDict([
            ("_target_", "stable_pretraining.backbone.MLP"), ("input_dim", HP["embed_dim"]),
            ("hidden_dim", HP["projector_hidden"]), ("output_dim", HP["projector_out"]),
            ("norm_fn", {"_target_": "torch.nn.BatchNorm1d"})]))])


def generate():
    out_dir = common.family_dir("lewm")
    weights, proj = make_weights()
    state = hf_vit(weights, HP["n_layer"], prefix="encoder.")
    state.update((f"projector.{k}", v) for k, v in proj.items())
    common.torch_save_deterministic(state, os.path.join(out_dir, "weights.pt"))
    common.write_json(os.path.join(out_dir, "config.json"), lewm_config())
    pixels = common.make_input(SEED + 1, (1, 3, HP["img_size"], HP["img_size"]))
    hidden, selfcheck = reference(weights, torch.from_numpy(pixels))
    projected = projector(hidden[:, 0], proj)
    common.save_npy(os.path.join(out_dir, "input.npy"), pixels)
    common.save_f32(os.path.join(out_dir, "last_hidden_state.npy"), hidden)
    common.save_f32(os.path.join(out_dir, "pooled.npy"), hidden[:, 0])
    common.save_f32(os.path.join(out_dir, "projected.npy"), projected)
    grid = HP["img_size"] // HP["patch"]
    return {
        "family": "lewm",
        "source_layout": "quentinll/lewm-* style: weights.pt (torch zip pickle of the JEPA state dict: 'encoder.' + "
                         "HF ViTModel names, 'projector.net.{0,1,3}.*') + config.json (encoder/projector sections)",
        "checkpoint": ["weights.pt", "config.json"],
        "checkpoint_omitted": "predictor.*, action_encoder.*, pred_proj.* (encoder fixture only)",
        "config_note": "real configs give only encoder.size ('tiny' -> D192/L12/H3); this fixture's size "
                       "'fixture' is spelled out in hidden_size/num_hidden_layers/num_attention_heads/"
                       "intermediate_size, which the real file lacks",
        "hparams": dict(HP, patch_grid=[grid, grid]),
        "input": "input.npy", "input_shape": list(pixels.shape),
        "input_layout": "NCHW float32, already preprocessed",
        "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
        "pooled": "pooled.npy", "pooled_shape": [1, HP["embed_dim"]],
        "projected": "projected.npy", "projected_shape": list(projected.shape),
        "token_order": "CLS, then patches row-major",
        "pooling": "CLS row after the final LayerNorm; projected = projector(CLS) = Linear -> BatchNorm1d(eval, "
                   "eps 1e-5) -> GELU(erf) -> Linear (the world-model state)",
        "reference": "torchvision VisionTransformer blocks in float64 with LayerNorm eps 1e-12; projector own float64",
        "self_checks": {"torchvision_vs_own_block_max_abs": selfcheck},
    }
