"""vjepa2_1_hier: a V-JEPA 2.1 g/G-style `.pt` (facebookresearch/vjepa2 app/vjepa_2_1) whose predictor reads the
encoder's 4 hierarchy levels (n_output_distillation 4).

Top-level keys `encoder`, `predictor`, `target_encoder`, `epoch`; names `module.backbone.*`. g/G files are read
from `target_encoder` (families.md §4.2); `encoder` shares every tensor with it but norms_block.1 and one bias.
Encoder depth 12 is the smallest depth the real VisionTransformer defines hierarchy layers for: [2, 5, 8, 11].
Hierarchy output (VisionTransformer.forward with return_hierarchical): cat_k norms_block[k](x after block
hier_layers[k]) along channels -> [N, 4D]; its last D columns are the inference output norms_block[-1](x).
Predictor (VisionTransformerPredictor, depth 4 -> 4 hierarchical layers): predictor_embed = Linear(4D -> D), GELU,
Linear(D -> Dp); mask_tokens[mask_index % 8] per target (default mask_index 1), no positional add; concat
context then targets, argsort by id, + video_mod_embed on every row, RoPE blocks (interleaved, positions decoded
on the fixed img_size/patch grid, no interpolation), predictor_norm, unsort; predictor_proj on the target rows
and predictor_proj_context on the context rows, both Dp -> 4·D (one D-wide prediction per hierarchy level).
The context tokens are the rows `context_ids` of the hierarchy output of the whole clip (the engine's `predict`,
as HF's VJEPA2Model feeds its predictor); Meta's training runs the context encoder on the context tokens alone.
An image case (1-frame clip: patch_embed_img + img_mod_embed, the predictor's img_mod_embed) runs the same path.
Negative control: the predictor fed one level (the last, repeated 4 times) instead of the four.
"""
import os
from collections import OrderedDict

import numpy as np
import torch

import common
from common import f64
from layouts import prefixed, variant_sharing_storage
from positions import rope_axis_dim, rope_rotator, rope_tables, token_positions
from rope_encoder import rope_for_grid

SEED = 5101
EPS = 1e-6
HIER_LAYERS = [2, 5, 8, 11]
N_LEVELS = len(HIER_LAYERS)
HP = {"embed_dim": 32, "n_layer": 12, "n_head": 2, "head_dim": 16, "ffn_dim": 64, "patch": 16, "tubelet": 2,
      "img_tubelet": 1, "img_size": 48, "frames": 4, "eps": EPS, "rope_layout": "interleaved",
      "rope_axis_dim": rope_axis_dim(16), "rope_theta": 10000.0, "interpolate_rope": True, "rope_ref_grid": 16,
      "hier_layers": HIER_LAYERS, "n_output_distillation": N_LEVELS}
PRED = {"embed_dim": 48, "n_layer": 4, "n_head": 2, "head_dim": 24, "ffn_dim": 96, "n_mask_tokens": 8,
        "embed_in_dim": N_LEVELS * HP["embed_dim"], "out_dim": N_LEVELS * HP["embed_dim"],
        "grid_size": HP["img_size"] // HP["patch"], "rope_layout": "interleaved", "rope_axis_dim": rope_axis_dim(24),
        "mask_index": 1, "modality": "video"}
DECOY_DIFFERS = ("norms_block.1.weight", "norms_block.1.bias", "blocks.3.attn.proj.bias")
N_CONTEXT = 11
N_CONTEXT_IMAGE = 5


def make_encoder(wm):
    dim, patch = HP["embed_dim"], HP["patch"]
    w = OrderedDict()
    for name, tub in (("patch_embed", HP["tubelet"]), ("patch_embed_img", HP["img_tubelet"])):
        w[f"{name}.proj.weight"] = wm.normal((dim, 3, tub, patch, patch), 1.0 / np.sqrt(3 * tub * patch * patch))
        w[f"{name}.proj.bias"] = wm.normal((dim,), 0.02)
    for i in range(HP["n_layer"]):
        for k, v in common.make_block_weights(wm, dim, HP["ffn_dim"]).items():
            w[f"blocks.{i}.{k}"] = v
    for k in range(N_LEVELS):
        w[f"norms_block.{k}.weight"], w[f"norms_block.{k}.bias"] = wm.layer_norm(dim)
    w["img_mod_embed"] = wm.normal((1, 1, dim), 0.5)
    w["video_mod_embed"] = wm.normal((1, 1, dim), 0.5)
    return w


def make_predictor(wm):
    dim, dp = HP["embed_dim"], PRED["embed_dim"]
    w = OrderedDict()
    w["predictor_embed.0.weight"], w["predictor_embed.0.bias"] = wm.linear(dim, PRED["embed_in_dim"])
    w["predictor_embed.2.weight"], w["predictor_embed.2.bias"] = wm.linear(dp, dim)
    for k in range(PRED["n_mask_tokens"]):
        w[f"mask_tokens.{k}"] = wm.normal((1, 1, dp), 0.5)
    w["video_mod_embed"] = wm.normal((1, 1, dp), 0.5)
    w["img_mod_embed"] = wm.normal((1, 1, dp), 0.5)
    for i in range(PRED["n_layer"]):
        for k, v in common.make_block_weights(wm, dp, PRED["ffn_dim"]).items():
            w[f"predictor_blocks.{i}.{k}"] = v
    w["predictor_norm.weight"], w["predictor_norm.bias"] = wm.layer_norm(dp)
    w["predictor_proj.weight"], w["predictor_proj.bias"] = wm.linear(PRED["out_dim"], dp)
    w["predictor_proj_context.weight"], w["predictor_proj_context.bias"] = wm.linear(PRED["out_dim"], dp)
    return w


def hierarchy(weights, clip, keep=None):
    """[N, 4D]: norms_block[k](x after block HIER_LAYERS[k]) for k = 0..3, concatenated along channels.
    A 1-frame clip takes the image tokenizer (patch_embed_img, img_mod_embed) and a 1-slot grid. keep: Meta's
    masked encoding (apply_masks before the blocks, RoPE at the kept ids), giving [len(keep), 4D]."""
    _, _, frames, height, width = clip.shape
    image = frames == 1
    embed, modality = ("patch_embed_img", "img_mod_embed") if image else ("patch_embed", "video_mod_embed")
    x = common.patch_embed_3d(clip, weights[f"{embed}.proj.weight"], weights[f"{embed}.proj.bias"])
    x = x + f64(weights[modality])[0]
    grid = (1 if image else frames // HP["tubelet"], height // HP["patch"], width // HP["patch"])
    cos, sin = rope_for_grid(grid, HP["head_dim"], HP["rope_layout"], ref_grid=HP["rope_ref_grid"])
    if keep is not None:
        x, cos, sin = x[torch.from_numpy(keep)], cos[keep], sin[keep]
    rope = rope_rotator(cos, sin)
    levels = []
    for i in range(HP["n_layer"]):
        x = common.vit_block(x, common.block_params(weights, f"blocks.{i}."), HP["n_head"], EPS, rope=rope)
        if i in HIER_LAYERS:
            k = HIER_LAYERS.index(i)
            levels.append(common.layer_norm(x, weights[f"norms_block.{k}.weight"], weights[f"norms_block.{k}.bias"], EPS))
    return torch.cat(levels, dim=1)


def predictor(w, tokens, context_ids, target_ids, mask_index=PRED["mask_index"], modality="video"):
    """(targets [Nt, 4D], context [Nc, 4D]) from the rows context_ids of tokens [N, 4D]."""
    x = common.linear(tokens[context_ids], w["predictor_embed.0.weight"], w["predictor_embed.0.bias"])
    x = common.linear(common.gelu_erf(x), w["predictor_embed.2.weight"], w["predictor_embed.2.bias"])
    n_ctx = x.shape[0]
    mask_token = f64(w[f"mask_tokens.{mask_index % PRED['n_mask_tokens']}"]).reshape(1, -1)
    x = torch.cat([x, mask_token.repeat(len(target_ids), 1)], dim=0)
    ids = np.concatenate([context_ids, target_ids])
    order = np.argsort(ids, kind="stable")
    x = x[torch.from_numpy(order)] + f64(w["img_mod_embed" if modality == "image" else "video_mod_embed"]).reshape(1, -1)
    t, h, wd = token_positions(ids[order], PRED["grid_size"], PRED["grid_size"])
    rope = rope_rotator(*rope_tables(t, h, wd, PRED["head_dim"], PRED["rope_layout"]))
    for i in range(PRED["n_layer"]):
        x = common.vit_block(x, common.block_params(w, f"predictor_blocks.{i}."), PRED["n_head"], EPS, rope=rope)
    x = common.layer_norm(x, w["predictor_norm.weight"], w["predictor_norm.bias"], EPS)
    x = x[torch.from_numpy(np.argsort(order, kind="stable"))]
    targets = common.linear(x[n_ctx:], w["predictor_proj.weight"], w["predictor_proj.bias"])
    context = common.linear(x[:n_ctx], w["predictor_proj_context.weight"], w["predictor_proj_context.bias"])
    return targets, context


def generate():
    out_dir = common.family_dir("vjepa2_1_hier")
    wm = common.WeightMaker(SEED)
    enc = make_encoder(wm)
    pred = make_predictor(wm)
    decoy_rng = common.WeightMaker(SEED + 7)
    decoy = variant_sharing_storage(enc, DECOY_DIFFERS, lambda t: t + decoy_rng.normal(tuple(t.shape), 0.2))
    ckpt_name = "vjepa2_1_hier_fixture.pt"
    common.torch_save_deterministic(OrderedDict([
        ("encoder", prefixed(decoy, "module.backbone.")),
        ("predictor", prefixed(pred, "module.backbone.")),
        ("target_encoder", prefixed(enc, "module.backbone.")),
        ("epoch", 10)]), os.path.join(out_dir, ckpt_name))

    clip = common.make_input(SEED + 1, (1, 3, HP["frames"], HP["img_size"], HP["img_size"]))
    hier = hierarchy(enc, f64(clip))
    n_tok, dim = hier.shape[0], HP["embed_dim"]
    rng = np.random.default_rng(SEED + 2)
    perm = rng.permutation(n_tok)
    context_ids = np.sort(perm[:N_CONTEXT]).astype(np.int64)
    target_ids = perm[N_CONTEXT:].astype(np.int64)  # unsorted, as a mask collator may give them
    targets, context = predictor(pred, hier, context_ids, target_ids)
    one_level = hier[:, -dim:].repeat(1, N_LEVELS)
    targets_one, context_one = predictor(pred, one_level, context_ids, target_ids)
    decoy_hier = hierarchy(decoy, f64(clip))
    # Meta's training path: the context encoder sees the context tokens alone (jepa predict --context-only)
    masked = torch.zeros_like(hier)
    masked[torch.from_numpy(context_ids)] = hierarchy(enc, f64(clip), keep=context_ids)
    targets_masked, _ = predictor(pred, masked, context_ids, target_ids)
    image = common.make_input(SEED + 3, (1, 3, 1, HP["img_size"], HP["img_size"]))
    hier_img = hierarchy(enc, f64(image))
    perm_img = np.random.default_rng(SEED + 4).permutation(hier_img.shape[0])
    context_ids_img = np.sort(perm_img[:N_CONTEXT_IMAGE]).astype(np.int64)
    target_ids_img = perm_img[N_CONTEXT_IMAGE:].astype(np.int64)
    targets_img, context_img = predictor(pred, hier_img, context_ids_img, target_ids_img, modality="image")

    common.save_npy(os.path.join(out_dir, "input.npy"), clip)
    common.save_npy(os.path.join(out_dir, "context_ids.npy"), context_ids)
    common.save_npy(os.path.join(out_dir, "target_ids.npy"), target_ids)
    common.save_f32(os.path.join(out_dir, "hierarchy.npy"), hier[None])
    common.save_f32(os.path.join(out_dir, "last_hidden_state.npy"), hier[None, :, -dim:])
    common.save_f32(os.path.join(out_dir, "targets.npy"), targets)
    common.save_f32(os.path.join(out_dir, "context.npy"), context)
    common.save_f32(os.path.join(out_dir, "targets_one_level.npy"), targets_one)
    common.save_f32(os.path.join(out_dir, "targets_masked_encoder.npy"), targets_masked)
    common.save_npy(os.path.join(out_dir, "input_image.npy"), image)
    common.save_npy(os.path.join(out_dir, "context_ids_image.npy"), context_ids_img)
    common.save_npy(os.path.join(out_dir, "target_ids_image.npy"), target_ids_img)
    common.save_f32(os.path.join(out_dir, "hierarchy_image.npy"), hier_img[None])
    common.save_f32(os.path.join(out_dir, "targets_image.npy"), targets_img)
    common.save_f32(os.path.join(out_dir, "context_image.npy"), context_img)
    grid = [HP["frames"] // HP["tubelet"], HP["img_size"] // HP["patch"], HP["img_size"] // HP["patch"]]
    return {
        "family": "vjepa2_1",
        "source_layout": "facebookresearch/vjepa2 (app/vjepa_2_1) .pt (torch zip pickle): {encoder, predictor, "
                         "target_encoder, epoch}, names 'module.backbone.'; encoder as in vjepa2_1/; predictor "
                         "predictor_embed.{0,2}.*, mask_tokens.{0..7}, img_mod_embed, video_mod_embed, "
                         "predictor_blocks.{i}.*, predictor_norm.*, predictor_proj.*, predictor_proj_context.*",
        "checkpoint": [ckpt_name],
        "checkpoint_entry_used": "target_encoder (+ predictor)",
        "convert_overrides": {"img_size": HP["img_size"], "pred_n_head": PRED["n_head"]},
        "hparams": dict(HP, patch_grid=grid), "predictor_hparams": PRED,
        "input": "input.npy", "input_shape": list(clip.shape),
        "context_ids": "context_ids.npy", "target_ids": "target_ids.npy",
        "context_ids_values": context_ids.tolist(), "target_ids_values": target_ids.tolist(),
        "hierarchy": "hierarchy.npy", "hierarchy_shape": [1, n_tok, N_LEVELS * dim],
        "hierarchy_layout": "[norms_block.0(x after block 2) | norms_block.1(x after 5) | norms_block.2(x after 8) | "
                            "norms_block.3(x after 11)], each D = 32 wide",
        "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": [1, n_tok, dim],
        "targets": "targets.npy", "targets_shape": list(targets.shape),
        "context": "context.npy", "context_shape": list(context.shape),
        "image_case": {"input": "input_image.npy", "input_shape": list(image.shape),
                       "tokenizer": "patch_embed_img (1x16x16) + img_mod_embed; grid 1x3x3; predictor img_mod_embed",
                       "hierarchy": "hierarchy_image.npy", "targets": "targets_image.npy", "context": "context_image.npy",
                       "context_ids_values": context_ids_img.tolist(), "target_ids_values": target_ids_img.tolist()},
        "predictor_output_layout": "4 D-wide blocks, one prediction per hierarchy level (Meta's loss compares block k "
                                   "with layer_norm(level k of the target encoder))",
        "token_order": "t-major, then h, then w; no CLS",
        "reference": "own float64 code (common.vit_block + positions.rope_tables), F.conv3d float64",
        "notes": "predictor depth 4: the real class's smallest depth with a hierarchy table ([0,1,2,3]); the g/G "
                 "predictors have depth 24. The checkpoint's `encoder` (the student) is what Meta's training fed "
                 "the predictor; the engine runs the converted target_encoder (the EMA copy).",
        "targets_masked_encoder": "targets_masked_encoder.npy: Meta's training path, the encoder over the context "
                                  "tokens only (apply_masks before the blocks, RoPE at their ids): what the engine's "
                                  "context-only encoding (jepa predict --context-only) is judged against; by default "
                                  "it encodes the whole clip, which this file's targets differ from",
        "masked_encoder_vs_whole_clip_targets_cosine": common.cosine_stats(targets.numpy(), targets_masked.numpy()),
        "negative_controls": {
            "targets_one_level.npy": "predictor fed norms_block.3 (the last level) repeated 4x instead of the 4 levels",
            "one_level_cosine": common.cosine_stats(targets.numpy(), targets_one.numpy()),
            "one_level_context_cosine": common.cosine_stats(context.numpy(), context_one.numpy()),
            "wrong_entry_encoder_vs_target_encoder_hierarchy_cosine":
                common.cosine_stats(hier.numpy(), decoy_hier.numpy())},
    }
