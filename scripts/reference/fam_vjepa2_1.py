"""vjepa2_1: V-JEPA 2.1 encoder as a facebookresearch/vjepa2 `.pt` (torch.save of a dict), B/L style.

Top-level keys `encoder`, `ema_encoder`, `epoch`; names `module.backbone.*`. The B/L builders load
`ema_encoder`; `encoder` shares every tensor with it except norms_block.3 and one block bias.
Forward (app/vjepa_2_1/models/vision_transformer.py + utils/modules.py):
  video (T != 1): Conv3d 2x16x16 + video_mod_embed; image (T == 1): Conv3d 1x16x16 (patch_embed_img) +
  img_mod_embed; RoPE blocks with the interleaved layout (repeat_interleave) and interpolate_rope
  (h, w scaled by (256/patch - 1)/(grid - 1), time not); output norms_block[-1](x).
A non-square 48x64 input exercises handle_nonsquare_inputs (grid from the actual H/16, W/16).
Negative controls: tiled layout (interpolation kept); interleaved without interpolate_rope.
"""
import os
from collections import OrderedDict

import numpy as np

import common
from common import f64
from layouts import prefixed, variant_sharing_storage
from positions import rope_axis_dim
from rope_encoder import rope_for_grid, run_blocks

SEED = 5001
EPS = 1e-6
N_HIER_NORMS = 4
HP = {"embed_dim": 64, "n_layer": 2, "n_head": 1, "head_dim": 64, "ffn_dim": 128, "patch": 16, "tubelet": 2,
      "img_tubelet": 1, "img_temporal_dim_size": 1, "height": 48, "width": 64, "frames": 4, "eps": EPS,
      "rope_layout": "interleaved", "rope_axis_dim": rope_axis_dim(64), "rope_theta": 10000.0,
      "interpolate_rope": True, "rope_ref_grid": 256 // 16, "n_hier_norms": N_HIER_NORMS,
      "output_norm": f"norms_block.{N_HIER_NORMS - 1}"}
DECOY_DIFFERS = (f"norms_block.{N_HIER_NORMS - 1}.weight", f"norms_block.{N_HIER_NORMS - 1}.bias",
                 "blocks.1.mlp.fc2.bias")


def make_weights():
    dim, patch = HP["embed_dim"], HP["patch"]
    wm = common.WeightMaker(SEED)
    w = OrderedDict()
    for name, tub in (("patch_embed", HP["tubelet"]), ("patch_embed_img", HP["img_tubelet"])):
        w[f"{name}.proj.weight"] = wm.normal((dim, 3, tub, patch, patch), 1.0 / np.sqrt(3 * tub * patch * patch))
        w[f"{name}.proj.bias"] = wm.normal((dim,), 0.02)
    for i in range(HP["n_layer"]):
        for k, v in common.make_block_weights(wm, dim, HP["ffn_dim"]).items():
            w[f"blocks.{i}.{k}"] = v
    for k in range(N_HIER_NORMS):
        w[f"norms_block.{k}.weight"], w[f"norms_block.{k}.bias"] = wm.layer_norm(dim)
    # Trained modality vectors are O(1) relative to the tokens (init is 1e-6); make them matter.
    w["img_mod_embed"] = wm.normal((1, 1, dim), 0.5)
    w["video_mod_embed"] = wm.normal((1, 1, dim), 0.5)
    decoy_rng = common.WeightMaker(SEED + 7)
    decoy = variant_sharing_storage(w, DECOY_DIFFERS, lambda t: t + decoy_rng.normal(tuple(t.shape), 0.2))
    return w, decoy


def grid_of(clip):
    _, _, frames, height, width = clip.shape
    t = frames if frames == HP["img_temporal_dim_size"] else frames // HP["tubelet"]
    return t, height // HP["patch"], width // HP["patch"]


def reference(weights, clip, layout, interpolate=True):
    is_image = clip.shape[2] == HP["img_temporal_dim_size"]
    embed, modality = ("patch_embed_img", "img_mod_embed") if is_image else ("patch_embed", "video_mod_embed")
    x = common.patch_embed_3d(clip, weights[f"{embed}.proj.weight"], weights[f"{embed}.proj.bias"])
    x = x + f64(weights[modality])[0]
    cos_sin = rope_for_grid(grid_of(clip), HP["head_dim"], layout,
                            ref_grid=HP["rope_ref_grid"] if interpolate else None)
    x = run_blocks(x, weights, n_layer=HP["n_layer"], n_head=HP["n_head"], eps=EPS, cos_sin=cos_sin)
    last = N_HIER_NORMS - 1
    return common.layer_norm(x, weights[f"norms_block.{last}.weight"], weights[f"norms_block.{last}.bias"], EPS)[None]


def generate():
    out_dir = common.family_dir("vjepa2_1")
    weights, decoy = make_weights()
    ckpt_name = "vjepa2_1_fixture.pt"
    common.torch_save_deterministic(OrderedDict([
        ("encoder", prefixed(decoy, "module.backbone.")),
        ("ema_encoder", prefixed(weights, "module.backbone.")),
        ("epoch", 10)]), os.path.join(out_dir, ckpt_name))

    clip = common.make_input(SEED + 1, (1, 3, HP["frames"], HP["height"], HP["width"]))
    image = common.make_input(SEED + 2, (1, 3, 1, HP["height"], HP["width"]))
    hidden = reference(weights, f64(clip), "interleaved")
    hidden_img = reference(weights, f64(image), "interleaved")
    wrong = reference(weights, f64(clip), "tiled")
    no_interp = reference(weights, f64(clip), "interleaved", interpolate=False)
    decoy_hidden = reference(decoy, f64(clip), "interleaved")
    for name, array in (("input.npy", clip), ("input_image.npy", image)):
        common.save_npy(os.path.join(out_dir, name), array)
    common.save_f32(os.path.join(out_dir, "last_hidden_state.npy"), hidden)
    common.save_f32(os.path.join(out_dir, "pooled.npy"), hidden.mean(1))
    common.save_f32(os.path.join(out_dir, "last_hidden_state_image.npy"), hidden_img)
    common.save_f32(os.path.join(out_dir, "pooled_image.npy"), hidden_img.mean(1))
    common.save_f32(os.path.join(out_dir, "last_hidden_state_wrong_layout.npy"), wrong)
    common.save_f32(os.path.join(out_dir, "last_hidden_state_no_interp.npy"), no_interp)
    gt, gh, gw = grid_of(clip)
    return {
        "family": "vjepa2_1",
        "source_layout": "facebookresearch/vjepa2 (app/vjepa_2_1) .pt (torch zip pickle): {encoder, ema_encoder, "
                         "epoch}, names 'module.backbone.' + patch_embed.proj.*, patch_embed_img.proj.*, "
                         "img_mod_embed, video_mod_embed, blocks.{i}.*, norms_block.{0..3}.* (no norm.*)",
        "checkpoint": [ckpt_name],
        "checkpoint_entry_used": "ema_encoder",
        "checkpoint_omitted": "predictor, opt, scaler, loss, batch_size, world_size, lr",
        "hparams": dict(HP, patch_grid_video=[gt, gh, gw], patch_grid_image=list(grid_of(image))),
        "input": "input.npy", "input_shape": list(clip.shape),
        "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
        "pooled": "pooled.npy", "pooled_shape": [1, HP["embed_dim"]],
        "cases": {
            "video": {"input": "input.npy", "input_shape": list(clip.shape),
                      "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
                      "pooled": "pooled.npy", "tokenizer": "patch_embed (2x16x16) + video_mod_embed"},
            "image": {"input": "input_image.npy", "input_shape": list(image.shape),
                      "last_hidden_state": "last_hidden_state_image.npy",
                      "last_hidden_state_shape": list(hidden_img.shape), "pooled": "pooled_image.npy",
                      "tokenizer": "patch_embed_img (1x16x16) + img_mod_embed (T == img_temporal_dim_size == 1)"},
        },
        "input_layout": "NCTHW float32, already preprocessed; the image case is a 1-frame NCTHW tensor",
        "token_order": "t-major, then h, then w; no CLS",
        "pooling": "mean of patch tokens (the encoder has no pooling)",
        "rope": f"interleaved: cos[2k] = cos[2k+1] = cos(pos*w_k), w_k = 1/10000^(k/10), dims [0,20) t, [20,40) h, "
                f"[40,60) w, [60,64) untouched; interpolate_rope: h' = h*15/{gh - 1}, w' = w*15/{gw - 1} "
                "(ref grid 256/16 = 16 hard-coded, not img/patch); time unscaled; the image case has gh, gw as "
                "the video, t = 0",
        "notes": "the real VisionTransformer only defines out_layers_distillation for depth 12/24/40/48; with "
                 "depth 2 it would not run, the inference output (norms_block[-1] of the last block) is what is "
                 "computed here. 4 hierarchy norms are stored as the real encoder always builds 4.",
        "reference": "own float64 code (common.vit_block + positions.rope_tables), F.conv3d float64",
        "negative_controls": {
            "last_hidden_state_wrong_layout.npy": "tiled (V-JEPA 2) layout, interpolate_rope kept",
            "wrong_layout_cosine": common.cosine_stats(hidden.numpy(), wrong.numpy()),
            "last_hidden_state_no_interp.npy": "interleaved layout without interpolate_rope",
            "no_interp_cosine": common.cosine_stats(hidden.numpy(), no_interp.numpy()),
            "wrong_entry_encoder_vs_ema_encoder_cosine": common.cosine_stats(hidden.numpy(), decoy_hidden.numpy())},
    }
