"""vjepa2: V-JEPA 2 encoder in the transformers VJEPA2Model folder layout (ViT-H-like head_dim 80).

3-D RoPE with the tiled cos/sin layout (HF rotate_queries_or_keys uses .repeat, not repeat_interleave);
head_dim 80 -> 26 rotated dims per axis, 2 pass-through. No CLS, no position table, final LayerNorm.
Negative control: the same weights with the interleaved layout.
"""
import os
from collections import OrderedDict

import numpy as np

import common
from common import f64
from layouts import hf_vjepa2_encoder
from positions import rope_axis_dim
from rope_encoder import rope_for_grid, run_blocks

SEED = 4001
EPS = 1e-6
# mlp_ratio 1.0 keeps the 160-wide fixture small; F is a config value (int(hidden_size * mlp_ratio)).
HP = {"embed_dim": 160, "n_layer": 2, "n_head": 2, "head_dim": 80, "mlp_ratio": 1.0, "ffn_dim": 160,
      "patch": 16, "tubelet": 2, "img_size": 48, "frames": 4, "eps": EPS, "rope_layout": "tiled",
      "rope_axis_dim": rope_axis_dim(80), "rope_theta": 10000.0}


def make_weights():
    dim, patch, tub = HP["embed_dim"], HP["patch"], HP["tubelet"]
    wm = common.WeightMaker(SEED)
    w = OrderedDict()
    w["patch_embed.proj.weight"] = wm.normal((dim, 3, tub, patch, patch), 1.0 / np.sqrt(3 * tub * patch * patch))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    for i in range(HP["n_layer"]):
        for k, v in common.make_block_weights(wm, dim, HP["ffn_dim"]).items():
            w[f"blocks.{i}.{k}"] = v
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    return w


def grid_of(clip):
    _, _, frames, height, width = clip.shape
    return frames // HP["tubelet"], height // HP["patch"], width // HP["patch"]


def reference(weights, clip, layout):
    x = common.patch_embed_3d(clip, weights["patch_embed.proj.weight"], weights["patch_embed.proj.bias"])
    cos_sin = rope_for_grid(grid_of(clip), HP["head_dim"], layout)
    x = run_blocks(x, weights, n_layer=HP["n_layer"], n_head=HP["n_head"], eps=EPS, cos_sin=cos_sin)
    return common.layer_norm(x, weights["norm.weight"], weights["norm.bias"], EPS)[None]


def hf_config():
    return OrderedDict([
        ("architectures", ["VJEPA2Model"]), ("attention_dropout", 0.0), ("attention_probs_dropout_prob", 0.0),
        ("crop_size", HP["img_size"]), ("drop_path_rate", 0.0), ("frames_per_clip", HP["frames"]),
        ("hidden_act", "gelu"), ("hidden_size", HP["embed_dim"]), ("in_chans", 3), ("initializer_range", 0.02),
        ("layer_norm_eps", EPS), ("mlp_ratio", HP["mlp_ratio"]), ("model_type", "vjepa2"),
        ("num_attention_heads", HP["n_head"]), ("num_hidden_layers", HP["n_layer"]), ("num_pooler_layers", 3),
        ("patch_size", HP["patch"]), ("pred_hidden_size", 384), ("pred_mlp_ratio", 4.0),
        ("pred_num_attention_heads", 12), ("pred_num_hidden_layers", 12), ("pred_num_mask_tokens", 10),
        ("pred_zero_init_mask_tokens", True), ("qkv_bias", True), ("torch_dtype", "float32"),
        ("tubelet_size", HP["tubelet"])])


def video_preprocessor_config():
    crop = HP["img_size"]
    return OrderedDict([
        ("crop_size", {"height": crop, "width": crop}), ("do_center_crop", True), ("do_normalize", True),
        ("do_rescale", True), ("do_resize", True), ("image_mean", common.IMAGENET_MEAN),
        ("image_std", common.IMAGENET_STD), ("resample", 2), ("rescale_factor", 1 / 255),
        ("size", {"shortest_edge": int(crop * 256 / 224)}), ("video_processor_type", "VJEPA2VideoProcessor")])


def rope_description():
    hd, d = HP["head_dim"], HP["rope_axis_dim"]
    return (f"per head: dims [0,{d}) time, [{d},{2 * d}) height, [{2 * d},{3 * d}) width, [{3 * d},{hd}) untouched; "
            f"w_k = 1/10000^(k/{d // 2}); rot(x)[2k] = -x[2k+1], rot(x)[2k+1] = x[2k]; out = x*cos + rot(x)*sin; "
            f"tiled: cos[j] = cos(pos*w_(j mod {d // 2})) within a segment; applied to q,k after the projection, "
            "before the scale. Square input at crop_size, so HF's config-grid positions equal the actual grid.")


def generate():
    out_dir = common.family_dir("vjepa2")
    weights = make_weights()
    common.write_safetensors(os.path.join(out_dir, "model.safetensors"), hf_vjepa2_encoder(weights, HP["n_layer"]))
    common.write_json(os.path.join(out_dir, "config.json"), hf_config())
    common.write_json(os.path.join(out_dir, "video_preprocessor_config.json"), video_preprocessor_config())
    clip = common.make_input(SEED + 1, (1, 3, HP["frames"], HP["img_size"], HP["img_size"]))
    hidden = reference(weights, f64(clip), "tiled")
    wrong = reference(weights, f64(clip), "interleaved")
    common.save_npy(os.path.join(out_dir, "input.npy"), clip)
    common.save_f32(os.path.join(out_dir, "last_hidden_state.npy"), hidden)
    common.save_f32(os.path.join(out_dir, "pooled.npy"), hidden.mean(1))
    common.save_f32(os.path.join(out_dir, "last_hidden_state_wrong_layout.npy"), wrong)
    return {
        "family": "vjepa2",
        "source_layout": "HF transformers folder (VJEPA2Model encoder): config.json + model.safetensors (F32) + "
                         "video_preprocessor_config.json",
        "checkpoint": ["config.json", "model.safetensors", "video_preprocessor_config.json"],
        "checkpoint_omitted": "predictor.* and pooler tensors (config keeps the hub's pred_* values); a converter "
                              "must accept an encoder-only file for this fixture",
        "hparams": dict(HP, patch_grid=list(grid_of(clip))),
        "input": "input.npy", "input_shape": list(clip.shape),
        "input_layout": "NCTHW float32, already preprocessed (HF takes B,T,C,H,W and permutes to this)",
        "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
        "pooled": "pooled.npy", "pooled_shape": [1, HP["embed_dim"]],
        "token_order": "t-major (tubelet index), then h, then w; no CLS",
        "pooling": "mean of patch tokens (the encoder itself has no pooling)",
        "rope": rope_description(),
        "reference": "own float64 code (common.vit_block + positions.rope_tables), F.conv3d float64",
        "negative_controls": {
            "last_hidden_state_wrong_layout.npy": "same weights, interleaved (V-JEPA 2.1) layout",
            "wrong_layout_cosine": common.cosine_stats(hidden.numpy(), wrong.numpy())},
    }
