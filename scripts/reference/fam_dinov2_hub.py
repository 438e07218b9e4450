"""hfvit from the dinov2 repository's torch.hub files (dinov2_vit{s,b,l,g}14[_reg4]_pretrain.pth): a bare
state dict in the repository's own names, saved with torch.save.

Reference = a float64 transcription of facebookresearch/dinov2 models/vision_transformer.py and layers/
(DinoVisionTransformer.prepare_tokens_with_masks, interpolate_pos_encoding, Block with LayerScale, Attention,
Mlp, SwiGLUFFNFused), with the hub builders' settings: init_values 1.0 (layer scale on), LayerNorm eps 1e-6,
and for the position table interpolate_offset 0.1 / antialias False without registers, 0.0 / True with them
(hub/backbones.py dinov2_*14_reg). Nothing here imports the engine or the HF reference of fam_hfvit.
"""
import math
import os
from collections import OrderedDict

import torch

import common
import swiglu
from common import F64, f64

EPS = 1e-6


def make_weights(seed, *, dim, n_layer, hidden, swiglu_ffn, patch, table_grid, n_register):
    """The keys and shapes of a hub state dict; `hidden` is the MLP width (SwiGLU: the gated width h)."""
    wm = common.WeightMaker(seed)
    w = OrderedDict()
    w["cls_token"] = wm.normal((1, 1, dim), 0.5)
    w["pos_embed"] = wm.normal((1, 1 + table_grid * table_grid, dim), 0.5)
    if n_register:
        w["register_tokens"] = wm.normal((1, n_register, dim), 0.5)
    w["mask_token"] = wm.normal((1, dim), 0.02)
    w["patch_embed.proj.weight"] = wm.normal((dim, 3, patch, patch), 1.0 / math.sqrt(3 * patch * patch))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    for i in range(n_layer):
        s = f"blocks.{i}."
        block = common.make_block_weights(wm, dim, 2 * hidden if swiglu_ffn else hidden)
        for k in ("norm1.weight", "norm1.bias", "attn.qkv.weight", "attn.qkv.bias", "attn.proj.weight",
                  "attn.proj.bias"):
            w[s + k] = block[k]
        # Trained DINOv2 layer scales are far from their init 1.0; O(1) and uneven keeps them visible.
        w[s + "ls1.gamma"] = wm.uniform((dim,), 0.5, 1.5)
        w[s + "norm2.weight"], w[s + "norm2.bias"] = block["norm2.weight"], block["norm2.bias"]
        if swiglu_ffn:
            w[s + "mlp.w12.weight"], w[s + "mlp.w12.bias"] = block["mlp.fc1.weight"], block["mlp.fc1.bias"]
            w[s + "mlp.w3.weight"], w[s + "mlp.w3.bias"] = wm.linear(dim, hidden)
        else:
            w[s + "mlp.fc1.weight"], w[s + "mlp.fc1.bias"] = block["mlp.fc1.weight"], block["mlp.fc1.bias"]
            w[s + "mlp.fc2.weight"], w[s + "mlp.fc2.bias"] = block["mlp.fc2.weight"], block["mlp.fc2.bias"]
        w[s + "ls2.gamma"] = wm.uniform((dim,), 0.5, 1.5)
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    return w


def interpolate_pos_encoding(pos_embed, rows, cols, offset, antialias):
    """DinoVisionTransformer.interpolate_pos_encoding for an input of rows x cols patches (its w0, h0: the
    repository names the height w). Kept as stored when the grid is the table's own and square."""
    table = f64(pos_embed)
    n = table.shape[1] - 1
    side = int(math.sqrt(n))
    assert side * side == n
    if rows * cols == n and rows == cols:
        return table
    grid = table[:, 1:].reshape(1, side, side, -1).permute(0, 3, 1, 2)
    if offset:
        # scale_factor, not size: torch maps output i to input (i + 0.5) / scale - 0.5 with this very scale
        kwargs = {"scale_factor": (float(rows + offset) / side, float(cols + offset) / side)}
    else:
        kwargs = {"size": (rows, cols)}
    grid = torch.nn.functional.interpolate(grid, mode="bicubic", antialias=antialias, **kwargs)
    assert tuple(grid.shape[-2:]) == (rows, cols)
    patches = grid.permute(0, 2, 3, 1).reshape(1, rows * cols, -1)
    return torch.cat([table[:, :1], patches], dim=1)


def attention(x, p, n_head):
    """layers/attention.py Attention: qkv -> [3, H, N, hd], softmax(q k^T * hd^-0.5) v, proj."""
    n_tok, dim = x.shape
    hd = dim // n_head
    qkv = common.linear(x, p["attn.qkv.weight"], p["attn.qkv.bias"]).reshape(n_tok, 3, n_head, hd).permute(1, 2, 0, 3)
    q, k, v = qkv[0] * hd ** -0.5, qkv[1], qkv[2]
    out = (torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v).transpose(0, 1).reshape(n_tok, dim)
    return common.linear(out, p["attn.proj.weight"], p["attn.proj.bias"])


def ffn(h, p):
    """layers/mlp.py Mlp (fc1, exact GELU, fc2) or layers/swiglu_ffn.py SwiGLUFFNFused (w3(silu(x1) * x2))."""
    if "mlp.w12.weight" in p:
        return swiglu.swiglu(h, p["mlp.w12.weight"], p["mlp.w12.bias"], p["mlp.w3.weight"], p["mlp.w3.bias"])
    return common.linear(common.gelu_erf(common.linear(h, p["mlp.fc1.weight"], p["mlp.fc1.bias"])),
                         p["mlp.fc2.weight"], p["mlp.fc2.bias"])


def block(x, p, n_head, layer_scale):
    """layers/block.py Block.forward in eval: x + ls1(attn(norm1 x)), then x + ls2(mlp(norm2 x))."""
    ls1 = f64(p["ls1.gamma"]) if layer_scale else 1.0
    ls2 = f64(p["ls2.gamma"]) if layer_scale else 1.0
    x = x + ls1 * attention(common.layer_norm(x, p["norm1.weight"], p["norm1.bias"], EPS), p, n_head)
    return x + ls2 * ffn(common.layer_norm(x, p["norm2.weight"], p["norm2.bias"], EPS), p)


@torch.no_grad()
def forward_features(weights, pixels, hp, *, offset, antialias, layer_scale=True):
    """x_norm of forward_features as one [1, 1 + R + N, D] tensor: CLS, registers, patches."""
    patch = hp["patch"]
    rows, cols = pixels.shape[-2] // patch, pixels.shape[-1] // patch
    x = torch.nn.functional.conv2d(f64(pixels), f64(weights["patch_embed.proj.weight"]),
                                   f64(weights["patch_embed.proj.bias"]), stride=patch).flatten(2)[0].T
    x = torch.cat([f64(weights["cls_token"])[0], x], dim=0)
    x = x + interpolate_pos_encoding(weights["pos_embed"], rows, cols, offset, antialias)[0]
    if "register_tokens" in weights:
        x = torch.cat([x[:1], f64(weights["register_tokens"])[0], x[1:]], dim=0)
    for i in range(hp["n_layer"]):
        x = block(x, common.block_params(weights, f"blocks.{i}."), hp["n_head"], layer_scale)
    return common.layer_norm(x, weights["norm.weight"], weights["norm.bias"], EPS)[None]


def generate(name, *, seed, dim, n_head, n_layer, patch, table_grid, interp_grid, n_register, swiglu_ffn):
    """interp_grid: (rows, cols) of the input that forces the table to be resized."""
    out_dir = common.family_dir(name)
    hidden = swiglu.gated_width(dim, 4) if swiglu_ffn else 4 * dim
    offset, antialias = (0.0, True) if n_register else (0.1, False)
    hp = {"embed_dim": dim, "n_layer": n_layer, "n_head": n_head, "head_dim": dim // n_head, "ffn_dim": hidden,
          "mlp_ratio": 4, "swiglu": swiglu_ffn, "patch": patch, "table_grid": table_grid, "n_register": n_register,
          "interpolate_offset": offset, "interpolate_antialias": antialias, "eps": EPS}
    weights = make_weights(seed, dim=dim, n_layer=n_layer, hidden=hidden, swiglu_ffn=swiglu_ffn, patch=patch,
                           table_grid=table_grid, n_register=n_register)
    pth = f"{name}_pretrain.pth"
    common.torch_save_deterministic(weights, os.path.join(out_dir, pth))

    cases, controls = {}, {}
    for tag, (rows, cols) in (("", (table_grid, table_grid)), ("_interp", interp_grid)):
        pixels = torch.from_numpy(common.make_input(seed + 100 + rows * 10 + cols, (1, 3, rows * patch, cols * patch)))
        hidden_state = forward_features(weights, pixels, hp, offset=offset, antialias=antialias)
        common.save_npy(os.path.join(out_dir, f"input{tag}.npy"), pixels.numpy())
        common.save_f32(os.path.join(out_dir, f"last_hidden_state{tag}.npy"), hidden_state)
        common.save_f32(os.path.join(out_dir, f"pooled{tag}.npy"), hidden_state[:, 0])
        cases["native" if not tag else "interpolated"] = {
            "input": f"input{tag}.npy", "input_shape": list(pixels.shape),
            "last_hidden_state": f"last_hidden_state{tag}.npy", "last_hidden_state_shape": list(hidden_state.shape),
            "pooled": f"pooled{tag}.npy", "pooled_shape": [1, dim], "patch_grid": [rows, cols],
            "pos_table_resized": tag != ""}
        if not tag:
            no_ls = forward_features(weights, pixels, hp, offset=offset, antialias=antialias, layer_scale=False)
            common.save_f32(os.path.join(out_dir, "last_hidden_state_no_layerscale.npy"), no_ls)
            controls["last_hidden_state_no_layerscale.npy"] = "native case with ls1/ls2 left out (init_values None)"
            controls["no_layerscale_cosine"] = common.cosine_stats(hidden_state.numpy(), no_ls.numpy())
        elif offset:
            sized = forward_features(weights, pixels, hp, offset=0.0, antialias=antialias)
            common.save_f32(os.path.join(out_dir, "last_hidden_state_interp_no_offset.npy"), sized)
            controls["last_hidden_state_interp_no_offset.npy"] = (
                "interpolated case with the table resized to the grid (size=, as HF Dinov2 does) instead of by "
                f"the scale factor (grid + {offset}) / {table_grid}")
            controls["interp_no_offset_cosine"] = common.cosine_stats(hidden_state.numpy(), sized.numpy())

    return {
        "family": "hfvit",
        "variant": f"dinov2 torch.hub{' with registers' if n_register else ''}{' SwiGLU' if swiglu_ffn else ''}",
        "source_layout": "facebookresearch/dinov2 torch.hub file: torch.save of the bare state dict (torch zip "
                         "pickle), the repository's own names (blocks.N.ls1.gamma, mlp.w12, register_tokens, ...)",
        "checkpoint": [pth],
        "hparams": hp,
        "input_layout": "NCHW float32, already preprocessed (ImageNet mean/std applied)",
        "token_order": ["CLS"] + (["register"] * n_register) + ["patches row-major (h, then w)"],
        "input": cases["native"]["input"], "input_shape": cases["native"]["input_shape"],
        "last_hidden_state": cases["native"]["last_hidden_state"],
        "last_hidden_state_shape": cases["native"]["last_hidden_state_shape"],
        "pooled": cases["native"]["pooled"], "pooled_shape": cases["native"]["pooled_shape"],
        "pooling": "CLS row of last_hidden_state (x_norm_clstoken)",
        "cases": cases,
        "reference": "float64 transcription of dinov2 vision_transformer.py forward_features (x_norm: CLS, "
                     "registers, patches): registers inserted after the position add; position table resized "
                     f"in float64 with bicubic align_corners=False antialias={antialias}, "
                     + (f"scale_factor (grid + {offset}) / {table_grid}" if offset else "size = the patch grid")
                     + ("; SwiGLUFFNFused MLP, h = (int(4D * 2 / 3) + 7) // 8 * 8" if swiglu_ffn else ""),
        "negative_controls": controls,
    }
