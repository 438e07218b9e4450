"""hfvit: DINOv2-style HF ViT (transformers Dinov2Model / Dinov2WithRegistersModel folders).

Reference = torchvision's VisionTransformer blocks in float64 (torchvision_vit.py); the fused-name
float64 block of common.py is run alongside as a self-check of the code the RoPE families rely on.
"""
import os
from collections import OrderedDict

import numpy as np
import torch

import common
import torchvision_vit
from common import f64
from layouts import hf_dinov2

EPS = 1e-6


def make_weights(seed, *, dim, n_layer, ffn_dim, patch, table_grid, n_register):
    wm = common.WeightMaker(seed)
    w = OrderedDict()
    w["patch_embed.proj.weight"] = wm.normal((dim, 3, patch, patch), 1.0 / np.sqrt(3 * patch * patch))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    w["cls_token"] = wm.normal((1, 1, dim), 0.5)
    w["mask_token"] = wm.normal((1, dim), 0.02)
    if n_register:
        w["register_tokens"] = wm.normal((1, n_register, dim), 0.5)
    w["pos_embed"] = wm.normal((1, 1 + table_grid * table_grid, dim), 0.5)
    for i in range(n_layer):
        for k, v in common.make_block_weights(wm, dim, ffn_dim).items():
            w[f"blocks.{i}.{k}"] = v
        # Real DINOv2 layer-scales are learned and far from 1; keep them O(1) so blocks still matter.
        w[f"blocks.{i}.ls1"] = wm.uniform((dim,), 0.5, 1.5)
        w[f"blocks.{i}.ls2"] = wm.uniform((dim,), 0.5, 1.5)
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    return w


def interpolate_pos_table(pos_embed, grid_h, grid_w, antialias):
    """HF Dinov2Embeddings.interpolate_pos_encoding: CLS row kept, patch rows bicubic-resized
    (align_corners=False) from sqrt(N)xsqrt(N) to (grid_h, grid_w); skipped when the grid already matches."""
    table = f64(pos_embed)
    n_pos = table.shape[1] - 1
    side = int(round(n_pos ** 0.5))
    if side == grid_h and side == grid_w:
        return table
    patch_rows = table[:, 1:].reshape(1, side, side, -1).permute(0, 3, 1, 2)
    resized = torch.nn.functional.interpolate(patch_rows, size=(grid_h, grid_w), mode="bicubic",
                                              align_corners=False, antialias=antialias)
    return torch.cat([table[:, :1], resized.permute(0, 2, 3, 1).reshape(1, grid_h * grid_w, -1)], dim=1)


def reference(weights, pixels, hp, antialias):
    """Returns (last_hidden_state [1, 1+R+N, D] float64, self-check max |torchvision - own|)."""
    size = pixels.shape[-1]
    grid = size // hp["patch"]
    table = interpolate_pos_table(weights["pos_embed"], grid, grid, antialias)
    run_weights = dict(weights, pos_embed=table)
    vit = torchvision_vit.build(run_weights, image_size=size, patch=hp["patch"], dim=hp["embed_dim"],
                                n_layer=hp["n_layer"], n_head=hp["n_head"], ffn_dim=hp["ffn_dim"], eps=EPS)
    registers = weights.get("register_tokens")
    out_tv = torchvision_vit.last_hidden_state(vit, pixels, registers)

    x = common.patch_embed_2d(pixels, weights["patch_embed.proj.weight"], weights["patch_embed.proj.bias"])
    x = torch.cat([f64(weights["cls_token"])[0], x], dim=0) + table[0]
    if registers is not None:
        x = torch.cat([x[:1], f64(registers)[0], x[1:]], dim=0)
    for i in range(hp["n_layer"]):
        p = common.block_params(weights, f"blocks.{i}.")
        x = common.vit_block(x, p, hp["n_head"], EPS, layer_scale=(p["ls1"], p["ls2"]) if "ls1" in p else None)
    own = common.layer_norm(x, weights["norm.weight"], weights["norm.bias"], EPS)
    return out_tv, common.max_abs_diff(out_tv[0].numpy(), own.numpy())


def hf_config(hp, n_register):
    cfg = OrderedDict()
    cfg["architectures"] = ["Dinov2WithRegistersModel" if n_register else "Dinov2Model"]
    cfg["attention_probs_dropout_prob"] = 0.0
    cfg["drop_path_rate"] = 0.0
    cfg["hidden_act"] = "gelu"
    cfg["hidden_dropout_prob"] = 0.0
    cfg["hidden_size"] = hp["embed_dim"]
    cfg["image_size"] = hp["config_image_size"]
    cfg["initializer_range"] = 0.02
    cfg["layer_norm_eps"] = EPS
    cfg["layerscale_value"] = 1.0
    cfg["mlp_ratio"] = hp["ffn_dim"] // hp["embed_dim"]
    cfg["model_type"] = "dinov2_with_registers" if n_register else "dinov2"
    cfg["num_attention_heads"] = hp["n_head"]
    cfg["num_channels"] = 3
    cfg["num_hidden_layers"] = hp["n_layer"]
    if n_register:
        cfg["num_register_tokens"] = n_register
    cfg["patch_size"] = hp["patch"]
    cfg["qkv_bias"] = True
    cfg["torch_dtype"] = "float32"
    cfg["use_swiglu_ffn"] = False
    return cfg


def preprocessor_config(crop):
    return OrderedDict([
        ("crop_size", {"height": crop, "width": crop}), ("do_center_crop", True), ("do_convert_rgb", True),
        ("do_normalize", True), ("do_rescale", True), ("do_resize", True), ("image_mean", common.IMAGENET_MEAN),
        ("image_processor_type", "BitImageProcessor"), ("image_std", common.IMAGENET_STD), ("resample", 3),
        ("rescale_factor", 1 / 255), ("size", {"shortest_edge": int(crop * 256 / 224)})])


def generate(name, *, seed, dim, n_head, n_layer, patch, config_grid, interp_grid, n_register):
    out_dir = common.family_dir(name)
    hp = {"embed_dim": dim, "n_layer": n_layer, "n_head": n_head, "head_dim": dim // n_head, "ffn_dim": 4 * dim,
          "patch": patch, "config_image_size": config_grid * patch, "n_register": n_register, "eps": EPS}
    weights = make_weights(seed, dim=dim, n_layer=n_layer, ffn_dim=hp["ffn_dim"], patch=patch,
                           table_grid=config_grid, n_register=n_register)
    common.write_safetensors(os.path.join(out_dir, "model.safetensors"), hf_dinov2(weights, n_layer, n_register))
    common.write_json(os.path.join(out_dir, "config.json"), hf_config(hp, n_register))
    common.write_json(os.path.join(out_dir, "preprocessor_config.json"), preprocessor_config(config_grid * patch))

    antialias = n_register > 0  # Dinov2WithRegisters resizes with antialias=True, Dinov2 without
    cases, checks = {}, {}
    for tag, grid in (("", config_grid), ("_interp", interp_grid)):
        pixels = common.make_input(seed + 100 + grid, (1, 3, grid * patch, grid * patch))
        hidden, selfcheck = reference(weights, torch.from_numpy(pixels), hp, antialias)
        common.save_npy(os.path.join(out_dir, f"input{tag}.npy"), pixels)
        common.save_f32(os.path.join(out_dir, f"last_hidden_state{tag}.npy"), hidden)
        common.save_f32(os.path.join(out_dir, f"pooled{tag}.npy"), hidden[:, 0])
        cases["native" if not tag else "interpolated"] = {
            "input": f"input{tag}.npy", "input_shape": list(pixels.shape),
            "last_hidden_state": f"last_hidden_state{tag}.npy", "last_hidden_state_shape": list(hidden.shape),
            "pooled": f"pooled{tag}.npy", "pooled_shape": [1, dim], "patch_grid": [grid, grid],
            "pos_table_resized": grid != config_grid}
        checks[f"torchvision_vs_own_block_max_abs{tag or '_native'}"] = selfcheck
        if not tag:
            no_ls = {k: v for k, v in weights.items() if not k.endswith((".ls1", ".ls2"))}
            hidden_no_ls, _ = reference(no_ls, torch.from_numpy(pixels), hp, antialias)
            common.save_f32(os.path.join(out_dir, "last_hidden_state_no_layerscale.npy"), hidden_no_ls)
            no_ls_cosine = common.cosine_stats(hidden.numpy(), hidden_no_ls.numpy())
    return {
        "family": "hfvit",
        "variant": "dinov2_with_registers" if n_register else "dinov2",
        "source_layout": f"HF transformers folder ({hf_config(hp, n_register)['architectures'][0]}): config.json + "
                         "model.safetensors (F32) + preprocessor_config.json",
        "checkpoint": ["config.json", "model.safetensors", "preprocessor_config.json"],
        "hparams": hp,
        "input_layout": "NCHW float32, already preprocessed (ImageNet mean/std applied)",
        "token_order": ["CLS"] + (["register"] * n_register) + ["patches row-major (h, then w)"],
        "input": cases["native"]["input"], "input_shape": cases["native"]["input_shape"],
        "last_hidden_state": cases["native"]["last_hidden_state"],
        "last_hidden_state_shape": cases["native"]["last_hidden_state_shape"],
        "pooled": cases["native"]["pooled"], "pooled_shape": cases["native"]["pooled_shape"],
        "pooling": "CLS row of last_hidden_state (HF pooler_output = layernorm(x)[:, 0])",
        "cases": cases,
        "reference": "torchvision.models.VisionTransformer blocks in float64 (layer-scale folded into out_proj and "
                     "mlp.3, exact); registers inserted after the position add; position table resized in float64 "
                     f"with bicubic align_corners=False antialias={antialias} (HF does it in float32)",
        "self_checks": checks,
        "negative_controls": {"last_hidden_state_no_layerscale.npy": "native case with layer_scale1/2 ignored",
                              "no_layerscale_cosine": no_ls_cosine},
    }
