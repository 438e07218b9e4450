"""ijepa_pred, vjepa_pred: I-JEPA and V-JEPA (v1) pretraining checkpoints with their predictor.

A `.pth.tar` as Meta saves it: {encoder, predictor, target_encoder, epoch}, names prefixed `module.`
(I-JEPA, DDP) or `module.backbone.` (V-JEPA, DDP + MultiMaskWrapper). The predictor's heads equal the
encoder's (both repos build it with num_heads=encoder.num_heads). `target_encoder` is a decoy sharing
every tensor with `encoder` but the final norm and one bias.

Context features come from the `encoder` entry: both repos train the predictor on
predictor(encoder(x, masks_enc), masks_enc, masks_pred) and compare it with target_encoder(x)[masks_pred].
"""
import os
from collections import OrderedDict

import numpy as np
import torch

import common
import pretrain_predictor as pp
from common import f64
from layouts import prefixed, variant_sharing_storage
from positions import sincos_2d_ijepa, sincos_3d_vjepa

DECOY_DIFFERS = ("norm.weight", "norm.bias", "blocks.0.attn.proj.bias")

CASES = {
    "ijepa_pred": {
        "seed": 2101, "prefix": "module.", "ckpt": "ijepa_pred_fixture.pth.tar",
        "enc": {"embed_dim": 48, "n_layer": 2, "n_head": 2, "ffn_dim": 192, "patch": 14, "img_size": 56,
                "frames": 1, "tubelet": 1},
        "pred": {"embed_dim": 32, "depth": 2, "ffn_dim": 128, "mask_tokens": ["mask_token"], "mask_index": None},
        "split": (10, 6),
    },
    "vjepa_pred": {
        "seed": 3101, "prefix": "module.backbone.", "ckpt": "vjepa_pred_fixture.pth.tar",
        "enc": {"embed_dim": 64, "n_layer": 2, "n_head": 2, "ffn_dim": 128, "patch": 16, "img_size": 48,
                "frames": 4, "tubelet": 2},
        "pred": {"embed_dim": 48, "depth": 2, "ffn_dim": 192, "mask_tokens": ["mask_tokens.0", "mask_tokens.1"],
                 "mask_index": 1},
        "split": (11, 7),
    },
}


def _grid(enc):
    return enc["frames"] // enc["tubelet"], enc["img_size"] // enc["patch"]


def _table(case, dim):
    depth, grid = _grid(CASES[case]["enc"])
    return sincos_2d_ijepa(dim, grid) if case == "ijepa_pred" else sincos_3d_vjepa(dim, grid, depth)


def _encoder_weights(case, wm):
    enc = CASES[case]["enc"]
    dim, patch, tub = enc["embed_dim"], enc["patch"], enc["tubelet"]
    w = OrderedDict()
    shape = (dim, 3, patch, patch) if case == "ijepa_pred" else (dim, 3, tub, patch, patch)
    w["patch_embed.proj.weight"] = wm.normal(shape, 1.0 / np.sqrt(np.prod(shape[1:])))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    w["pos_embed"] = torch.from_numpy(_table(case, dim).astype(np.float32))[None]
    for i in range(enc["n_layer"]):
        for k, v in common.make_block_weights(wm, dim, enc["ffn_dim"]).items():
            w[f"blocks.{i}.{k}"] = v
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    return w


def _patchify(case, enc_w, pixels):
    embed = common.patch_embed_2d if case == "ijepa_pred" else common.patch_embed_3d
    return embed(torch.from_numpy(pixels), enc_w["patch_embed.proj.weight"], enc_w["patch_embed.proj.bias"])


def generate(case):
    c = CASES[case]
    enc, pred = c["enc"], c["pred"]
    out_dir = common.family_dir(case)
    wm = common.WeightMaker(c["seed"])
    enc_w = _encoder_weights(case, wm)
    pred_w = pp.make_weights(wm, enc["embed_dim"], pred["embed_dim"], pred["depth"], pred["ffn_dim"],
                             _table(case, pred["embed_dim"]), pred["mask_tokens"])
    decoy_rng = common.WeightMaker(c["seed"] + 7)
    decoy = variant_sharing_storage(enc_w, DECOY_DIFFERS, lambda t: t + decoy_rng.normal(tuple(t.shape), 0.2))
    common.torch_save_deterministic(OrderedDict([
        ("encoder", prefixed(enc_w, c["prefix"])),
        ("predictor", prefixed(pred_w, c["prefix"])),
        ("target_encoder", prefixed(decoy, c["prefix"])),
        ("epoch", 300)]), os.path.join(out_dir, c["ckpt"]))

    depth, grid = _grid(enc)
    shape = (1, 3, enc["img_size"], enc["img_size"]) if case == "ijepa_pred" else \
        (1, 3, enc["frames"], enc["img_size"], enc["img_size"])
    pixels = common.make_input(c["seed"] + 1, shape)
    n_tokens = depth * grid * grid
    ctx_ids, tgt_ids = pp.split_ids(c["seed"] + 2, n_tokens, *c["split"])
    mask_name = pred["mask_tokens"][(pred["mask_index"] or 0) % len(pred["mask_tokens"])]
    run = dict(depth=pred["depth"], n_head=enc["n_head"], mask_name=mask_name)
    enc_run = dict(n_layer=enc["n_layer"], n_head=enc["n_head"])

    patches = _patchify(case, enc_w, pixels)
    tokens = pp.encode(enc_w, patches, **enc_run)  # [N, D] float64, the whole input
    tokens_f32 = tokens.numpy().astype(np.float32)
    ctx = f64(tokens_f32)[ctx_ids]
    targets = pp.predict(pred_w, ctx, ctx_ids, tgt_ids, **run)
    from_input = pp.predict(pred_w, tokens[ctx_ids], ctx_ids, tgt_ids, **run)
    masked_ctx = pp.encode(enc_w, patches, keep=ctx_ids, **enc_run)
    from_masked = pp.predict(pred_w, masked_ctx, ctx_ids, tgt_ids, **run)
    decoy_tokens = pp.encode(decoy, _patchify(case, decoy, pixels), **enc_run)
    from_decoy = pp.predict(pred_w, decoy_tokens[ctx_ids], ctx_ids, tgt_ids, **run)
    permuted = pp.predict(pred_w, ctx, ctx_ids, tgt_ids, target_pos_ids=np.roll(tgt_ids, 1), **run)
    no_pos = pp.predict(pred_w, ctx, ctx_ids, tgt_ids, target_pos=False, **run)
    check = pp.self_check(pred_w, ctx, ctx_ids, tgt_ids, ffn_dim=pred["ffn_dim"], **run)

    common.save_npy(os.path.join(out_dir, "input.npy"), pixels)
    common.save_npy(os.path.join(out_dir, "tokens.npy"), tokens_f32)
    common.save_npy(os.path.join(out_dir, "context_ids.npy"), ctx_ids)
    common.save_npy(os.path.join(out_dir, "target_ids.npy"), tgt_ids)
    common.save_f32(os.path.join(out_dir, "targets.npy"), targets)
    common.save_f32(os.path.join(out_dir, "targets_from_input.npy"), from_input)
    common.save_f32(os.path.join(out_dir, "targets_masked_encoder.npy"), from_masked)
    common.save_f32(os.path.join(out_dir, "targets_permuted_target_pos.npy"), permuted)
    common.save_f32(os.path.join(out_dir, "targets_no_target_pos.npy"), no_pos)
    controls = {
        "permuted_target_pos_cosine": common.cosine_stats(targets.numpy(), permuted.numpy()),
        "no_target_pos_cosine": common.cosine_stats(targets.numpy(), no_pos.numpy()),
        "wrong_entry_target_encoder_cosine": common.cosine_stats(from_input.numpy(), from_decoy.numpy()),
    }
    if len(pred["mask_tokens"]) > 1:
        other = pp.predict(pred_w, ctx, ctx_ids, tgt_ids, **dict(run, mask_name=pred["mask_tokens"][0]))
        controls["mask_index_0_cosine"] = common.cosine_stats(targets.numpy(), other.numpy())
    family = case.split("_")[0]
    return {
        "family": family,
        "source_layout": f"Meta {'facebookresearch/ijepa' if family == 'ijepa' else 'facebookresearch/jepa'} "
                         f".pth.tar (torch zip pickle): {{encoder, predictor, target_encoder, epoch}}, names "
                         f"'{c['prefix']}' + encoder patch_embed.proj.*, pos_embed, blocks.{{i}}.*, norm.*; predictor "
                         f"predictor_embed.*, {', '.join(pred['mask_tokens'])}, predictor_pos_embed, "
                         f"predictor_blocks.{{i}}.*, predictor_norm.*, predictor_proj.*",
        "checkpoint": [c["ckpt"]],
        "checkpoint_entry_used": "encoder",
        "why_encoder_entry": "the predictor was trained on predictor(encoder(x, masks_enc), masks_enc, masks_pred) "
                             "against target_encoder(x)[masks_pred] (ijepa src/train.py, jepa app/vjepa/train.py): "
                             "its context features are the `encoder` entry's",
        "checkpoint_omitted": "opt, scaler",
        "hparams": {"n_head": enc["n_head"], "encoder": enc, "patch_grid": [depth, grid, grid],
                    "predictor": {"embed_dim": pred["embed_dim"], "depth": pred["depth"], "n_head": enc["n_head"],
                                  "head_dim": pred["embed_dim"] // enc["n_head"], "ffn_dim": pred["ffn_dim"],
                                  "eps": pp.EPS, "mask_tokens": pred["mask_tokens"], "mask_index": pred["mask_index"],
                                  "pos": "stored predictor_pos_embed (" + ("2-D sincos [emb_w | emb_h]" if family ==
                                         "ijepa" else "3-D sincos uniform_power [t | h | w]") + ")"}},
        "input": "input.npy", "input_shape": list(pixels.shape),
        "tokens": "tokens.npy (float32 [N, D]: the `encoder` entry over the whole input, after its final LN)",
        "context_ids": ctx_ids.tolist(), "target_ids": tgt_ids.tolist(),
        "targets": "targets.npy: predictor(tokens[context_ids]) [N_tgt, D], from the float32 tokens",
        "targets_from_input": "targets_from_input.npy: encoder over the whole input (float64), its context rows, "
                              "predictor — what `jepa predict` runs",
        "targets_masked_encoder": "targets_masked_encoder.npy: Meta's training path, the encoder over the context "
                                  "tokens only (apply_masks before the blocks): `jepa predict --context-only`, "
                                  "EncodeOptions.keep",
        "masked_vs_whole_encoder_cosine": common.cosine_stats(from_input.numpy(), from_masked.numpy()),
        "reference": "float64: common.vit_block / layer_norm for both encoder and predictor (pretrain_predictor.py)",
        "self_checks": {"predictor_blocks_own_vs_torchvision_max_abs": check},
        "negative_controls": controls,
        "negative_control_files": {
            "targets_permuted_target_pos.npy": "each target takes the next target's pos_embed row (np.roll by 1)",
            "targets_no_target_pos.npy": "the mask token without its position row",
        },
    }
