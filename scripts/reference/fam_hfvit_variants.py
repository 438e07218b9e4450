"""hfvit block variants: the DINOv2 SwiGLU MLP (use_swiglu_ffn, giant) and q/k/v without bias (qkv_bias false).

HF Dinov2Model folders. Reference = torchvision's VisionTransformer blocks in float64 with each block's MLP
replaced by the float64 SwiGLU of swiglu.py (and a zero in_proj_bias where the checkpoint has none: exactly
no bias); the fused-name float64 block of common.py is run alongside as a self-check.
"""
import os
from collections import OrderedDict

import torch

import common
import fam_hfvit
import swiglu
import torchvision_vit
from common import F64, f64
from layouts import hf_dinov2

EPS = fam_hfvit.EPS
CONTROL_DIR = "with_qkv_bias"


def make_weights(seed, hp):
    """fam_hfvit's weights; SwiGLU blocks take fc1 drawn at [2h, D] as w12 and a fresh w3 [D, h]."""
    dim, h = hp["embed_dim"], hp["ffn_dim"]
    w = fam_hfvit.make_weights(seed, dim=dim, n_layer=hp["n_layer"], ffn_dim=2 * h if hp["swiglu"] else h,
                               patch=hp["patch"], table_grid=hp["config_image_size"] // hp["patch"], n_register=0)
    extra = common.WeightMaker(seed + 500)
    for i in range(hp["n_layer"]):
        s = f"blocks.{i}."
        if hp["swiglu"]:
            w[s + "mlp.w12.weight"], w[s + "mlp.w12.bias"] = w.pop(s + "mlp.fc1.weight"), w.pop(s + "mlp.fc1.bias")
            del w[s + "mlp.fc2.weight"], w[s + "mlp.fc2.bias"]
            w[s + "mlp.w3.weight"], w[s + "mlp.w3.bias"] = extra.linear(dim, h)
    return w


def without_qkv_bias(weights, n_layer):
    return OrderedDict((k, v) for k, v in weights.items()
                       if k not in {f"blocks.{i}.attn.qkv.bias" for i in range(n_layer)})


def _own_block(x, p, hp, swapped):
    """x += ls1 * attn(LN1 x); x += ls2 * mlp(LN2 x), in the fused names, float64."""
    zero_bias = torch.zeros(3 * hp["embed_dim"], dtype=F64)
    y = common.attention(common.layer_norm(x, p["norm1.weight"], p["norm1.bias"], EPS), p["attn.qkv.weight"],
                         p.get("attn.qkv.bias", zero_bias), p["attn.proj.weight"], p["attn.proj.bias"], hp["n_head"])
    x = x + y * f64(p["ls1"])
    h = common.layer_norm(x, p["norm2.weight"], p["norm2.bias"], EPS)
    if hp["swiglu"]:
        y = swiglu.swiglu(h, p["mlp.w12.weight"], p["mlp.w12.bias"], p["mlp.w3.weight"], p["mlp.w3.bias"], swapped)
    else:
        y = common.linear(common.gelu_erf(common.linear(h, p["mlp.fc1.weight"], p["mlp.fc1.bias"])),
                          p["mlp.fc2.weight"], p["mlp.fc2.bias"])
    return x + y * f64(p["ls2"])


@torch.no_grad()
def reference(weights, pixels, hp, swapped=False):
    """Returns (last_hidden_state [1, 1+N, D] float64, self-check max |torchvision - own|)."""
    size, dim, h = pixels.shape[-1], hp["embed_dim"], hp["ffn_dim"]
    grid = size // hp["patch"]
    table = fam_hfvit.interpolate_pos_table(weights["pos_embed"], grid, grid, antialias=False)
    tv = dict(weights, pos_embed=table)
    for i in range(hp["n_layer"]):
        s = f"blocks.{i}."
        tv.setdefault(s + "attn.qkv.bias", torch.zeros(3 * dim, dtype=torch.float32))
        if hp["swiglu"]:  # torchvision's builder wants GELU-MLP weights; that MLP is swapped for SwiGLU below
            tv[s + "mlp.fc1.weight"], tv[s + "mlp.fc1.bias"] = torch.zeros(h, dim), torch.zeros(h)
            tv[s + "mlp.fc2.weight"], tv[s + "mlp.fc2.bias"] = torch.zeros(dim, h), torch.zeros(dim)
    vit = torchvision_vit.build(tv, image_size=size, patch=hp["patch"], dim=dim, n_layer=hp["n_layer"],
                                n_head=hp["n_head"], ffn_dim=h, eps=EPS)
    if hp["swiglu"]:
        for i, layer in enumerate(vit.encoder.layers):
            s = f"blocks.{i}."
            layer.mlp = swiglu.SwiGLUModule(weights[s + "mlp.w12.weight"], weights[s + "mlp.w12.bias"],
                                            weights[s + "mlp.w3.weight"], weights[s + "mlp.w3.bias"],
                                            out_scale=weights[s + "ls2"], swapped=swapped)
    out_tv = torchvision_vit.last_hidden_state(vit, pixels)

    x = common.patch_embed_2d(pixels, weights["patch_embed.proj.weight"], weights["patch_embed.proj.bias"])
    x = torch.cat([f64(weights["cls_token"])[0], x], dim=0) + table[0]
    for i in range(hp["n_layer"]):
        x = _own_block(x, common.block_params(weights, f"blocks.{i}."), hp, swapped)
    own = common.layer_norm(x, weights["norm.weight"], weights["norm.bias"], EPS)
    return out_tv, common.max_abs_diff(out_tv[0].numpy(), own.numpy())


def hf_config(hp):
    cfg = fam_hfvit.hf_config(dict(hp, ffn_dim=hp["mlp_ratio"] * hp["embed_dim"]), 0)
    cfg["qkv_bias"] = hp["qkv_bias"]
    cfg["use_swiglu_ffn"] = hp["swiglu"]
    return cfg


def write_folder(out_dir, weights, hp):
    common.write_safetensors(os.path.join(out_dir, "model.safetensors"), hf_dinov2(weights, hp["n_layer"]))
    common.write_json(os.path.join(out_dir, "config.json"), hf_config(hp))
    common.write_json(os.path.join(out_dir, "preprocessor_config.json"),
                      fam_hfvit.preprocessor_config(hp["config_image_size"]))


def generate(name, *, seed, dim, n_head, n_layer, patch, config_grid, interp_grid, mlp_ratio, swiglu_ffn, qkv_bias):
    out_dir = common.family_dir(name)
    ffn_dim = swiglu.gated_width(dim, mlp_ratio) if swiglu_ffn else mlp_ratio * dim
    hp = {"embed_dim": dim, "n_layer": n_layer, "n_head": n_head, "head_dim": dim // n_head, "ffn_dim": ffn_dim,
          "mlp_ratio": mlp_ratio, "swiglu": swiglu_ffn, "qkv_bias": qkv_bias, "patch": patch,
          "config_image_size": config_grid * patch, "n_register": 0, "eps": EPS}
    drawn = make_weights(seed, hp)
    weights = drawn if qkv_bias else without_qkv_bias(drawn, n_layer)
    write_folder(out_dir, weights, hp)

    cases, checks, controls = {}, {}, {}
    for tag, grid in (("", config_grid), ("_interp", interp_grid)):
        pixels = torch.from_numpy(common.make_input(seed + 100 + grid, (1, 3, grid * patch, grid * patch)))
        hidden, selfcheck = reference(weights, pixels, hp)
        common.save_npy(os.path.join(out_dir, f"input{tag}.npy"), pixels.numpy())
        common.save_f32(os.path.join(out_dir, f"last_hidden_state{tag}.npy"), hidden)
        common.save_f32(os.path.join(out_dir, f"pooled{tag}.npy"), hidden[:, 0])
        cases["native" if not tag else "interpolated"] = {
            "input": f"input{tag}.npy", "input_shape": list(pixels.shape),
            "last_hidden_state": f"last_hidden_state{tag}.npy", "last_hidden_state_shape": list(hidden.shape),
            "pooled": f"pooled{tag}.npy", "pooled_shape": [1, dim], "patch_grid": [grid, grid],
            "pos_table_resized": grid != config_grid}
        checks[f"torchvision_vs_own_block_max_abs{tag or '_native'}"] = selfcheck
        if tag:
            continue
        if swiglu_ffn:
            swapped, _ = reference(weights, pixels, hp, swapped=True)
            common.save_f32(os.path.join(out_dir, "last_hidden_state_gates_swapped.npy"), swapped)
            controls["last_hidden_state_gates_swapped.npy"] = (
                "native case with silu on the second half of weights_in's output (silu(x2) * x1); what an engine "
                "computes that gates the wrong half, or a converter that swaps the halves of weights_in")
            controls["gates_swapped_cosine"] = common.cosine_stats(hidden.numpy(), swapped.numpy())
            controls["gates_swapped_max_abs"] = common.max_abs_diff(hidden.numpy(), swapped.numpy())
        if not qkv_bias:
            control_hp = dict(hp, qkv_bias=True)
            write_folder(common.family_dir(os.path.join(name, CONTROL_DIR)), drawn, control_hp)
            biased, _ = reference(drawn, pixels, control_hp)
            common.save_f32(os.path.join(out_dir, "last_hidden_state_with_qkv_bias.npy"), biased)
            controls["last_hidden_state_with_qkv_bias.npy"] = (
                f"native case of {CONTROL_DIR}/: the same checkpoint with qkv_bias true and the q/k/v biases "
                "(std 0.02) the seed drew before they were dropped; what a graph that adds a q/k/v bias the "
                "checkpoint does not have computes (a key bias alone would not show: softmax ignores it)")
            controls["with_qkv_bias_cosine"] = common.cosine_stats(hidden.numpy(), biased.numpy())
            controls["with_qkv_bias_max_abs"] = common.max_abs_diff(hidden.numpy(), biased.numpy())

    files = ["config.json", "model.safetensors", "preprocessor_config.json"]
    return {
        "family": "hfvit",
        "variant": "dinov2_swiglu" if swiglu_ffn else "dinov2",
        "source_layout": "HF transformers folder (Dinov2Model): config.json + model.safetensors (F32) + "
                         "preprocessor_config.json",
        "checkpoint": files,
        "hparams": hp,
        "block": ("SwiGLU MLP: mlp.weights_in [2h, D] (+bias), mlp.weights_out [D, h] (+bias), "
                  f"h = (int(int(D * mlp_ratio) * 2 / 3) + 7) // 8 * 8 = (int({dim * mlp_ratio} * 2 / 3) + 7) // 8 * 8 "
                  f"= {ffn_dim}; x1, x2 = weights_in(x).chunk(2, -1); weights_out(silu(x1) * x2); hidden_act "
                  "'gelu' in config.json is not used by it" if swiglu_ffn else
                  "GELU MLP (mlp.fc1, mlp.fc2)") + ("" if qkv_bias else
                                                    "; attention.attention.{query,key,value} without bias"),
        "input_layout": "NCHW float32, already preprocessed (ImageNet mean/std applied)",
        "token_order": ["CLS", "patches row-major (h, then w)"],
        "input": cases["native"]["input"], "input_shape": cases["native"]["input_shape"],
        "last_hidden_state": cases["native"]["last_hidden_state"],
        "last_hidden_state_shape": cases["native"]["last_hidden_state_shape"],
        "pooled": cases["native"]["pooled"], "pooled_shape": cases["native"]["pooled_shape"],
        "pooling": "CLS row of last_hidden_state (HF pooler_output = layernorm(x)[:, 0])",
        "cases": cases,
        "reference": "torchvision.models.VisionTransformer blocks in float64 (layer-scale folded into out_proj and "
                     "the MLP's out projection, exact)" + ("; each MLPBlock replaced by the float64 SwiGLU of "
                                                           "scripts/reference/swiglu.py" if swiglu_ffn else "")
                     + ("" if qkv_bias else "; in_proj_bias zero (exactly no bias)")
                     + "; position table resized in float64 with bicubic align_corners=False antialias=False",
        "self_checks": checks,
        "negative_controls": controls,
    }
