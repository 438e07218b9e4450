"""The I-JEPA / V-JEPA (v1) pretraining predictor in float64, from the semantics of
facebookresearch/ijepa VisionTransformerPredictor.forward(x, masks_x, masks) and facebookresearch/jepa
VisionTransformerPredictor.forward(ctxt, tgt, masks_ctxt, masks_tgt, mask_index):

    ctx = predictor_embed(context tokens) + predictor_pos_embed[context ids]
    tgt = mask token (v1: mask_tokens[mask_index % n]) + predictor_pos_embed[target ids]
    x = concat(ctx, tgt)            # no sorting: neither reference sorts, and there is no RoPE
    x = predictor_blocks(x)         # pre-LN, fused qkv with bias, softmax attention, erf GELU MLP
    out = predictor_proj(predictor_norm(x)[len(ctx):])

Names are the predictor entry's with the wrapper prefix stripped.
"""
from collections import OrderedDict

import numpy as np
import torch

import common
import torchvision_vit
from common import f64

EPS = 1e-6


def make_weights(wm, enc_dim, dim, depth, ffn_dim, table, mask_names):
    """Seeded predictor weights in Meta's names; table is the [N, dim] sincos table it stores."""
    w = OrderedDict()
    w["predictor_embed.weight"], w["predictor_embed.bias"] = wm.linear(dim, enc_dim)
    for name in mask_names:
        # learned tokens at std 0.5, so that which token a target takes shows in the output
        w[name] = wm.normal((1, 1, dim), 0.5)
    w["predictor_pos_embed"] = torch.from_numpy(table.astype(np.float32))[None]
    for i in range(depth):
        for k, v in common.make_block_weights(wm, dim, ffn_dim).items():
            w[f"predictor_blocks.{i}.{k}"] = v
    w["predictor_norm.weight"], w["predictor_norm.bias"] = wm.layer_norm(dim)
    w["predictor_proj.weight"], w["predictor_proj.bias"] = wm.linear(enc_dim, dim)
    return w


def predictor_inputs(w, context, ctx_ids, tgt_ids, mask_name, target_pos_ids=None, target_pos=True):
    """The concatenated [N_ctx + N_tgt, dim] predictor input. target_pos_ids / target_pos=False are the
    negative controls: other table rows for the targets, or the mask token without its position."""
    table = f64(w["predictor_pos_embed"])[0]
    x = common.linear(f64(context), w["predictor_embed.weight"], w["predictor_embed.bias"]) + table[ctx_ids]
    rows = tgt_ids if target_pos_ids is None else target_pos_ids
    tgt = f64(w[mask_name]).reshape(1, -1).repeat(len(tgt_ids), 1)
    if target_pos:
        tgt = tgt + table[rows]
    return torch.cat([x, tgt], dim=0)


def run_blocks(w, x, depth, n_head):
    for i in range(depth):
        x = common.vit_block(x, common.block_params(w, f"predictor_blocks.{i}."), n_head, EPS)
    return common.layer_norm(x, w["predictor_norm.weight"], w["predictor_norm.bias"], EPS)


def run_blocks_torchvision(w, x, depth, n_head, ffn_dim):
    """The same blocks through torchvision's Encoder (a zero position table: the positions are already in x)."""
    renamed = OrderedDict()
    for k, v in w.items():
        if k.startswith("predictor_blocks."):
            renamed["blocks." + k[len("predictor_blocks."):]] = v
    renamed["norm.weight"], renamed["norm.bias"] = w["predictor_norm.weight"], w["predictor_norm.bias"]
    renamed["pos_embed"] = torch.zeros((1,) + tuple(x.shape), dtype=torch.float32)
    return torchvision_vit.encode_tokens_with_table(renamed, x, n_layer=depth, n_head=n_head, ffn_dim=ffn_dim, eps=EPS)[0]


def predict(w, context, ctx_ids, tgt_ids, *, depth, n_head, mask_name, **control):
    """[N_tgt, enc_dim] predictions for the targets."""
    x = run_blocks(w, predictor_inputs(w, context, ctx_ids, tgt_ids, mask_name, **control), depth, n_head)
    return common.linear(x[len(ctx_ids):], w["predictor_proj.weight"], w["predictor_proj.bias"])


def self_check(w, context, ctx_ids, tgt_ids, *, depth, n_head, ffn_dim, mask_name):
    """Max |own blocks − torchvision blocks| over the whole predictor sequence."""
    x = predictor_inputs(w, context, ctx_ids, tgt_ids, mask_name)
    return common.max_abs_diff(run_blocks(w, x, depth, n_head).numpy(),
                               run_blocks_torchvision(w, x, depth, n_head, ffn_dim).numpy())


def encode(enc_w, tokens, *, n_layer, n_head, keep=None):
    """The encoder after patchify: + stored table, [keep only the `keep` rows (Meta's masked context
    encoder)], blocks, final LN. Returns [N, D]."""
    x = tokens + f64(enc_w["pos_embed"])[0]
    if keep is not None:
        x = x[keep]
    for i in range(n_layer):
        x = common.vit_block(x, common.block_params(enc_w, f"blocks.{i}."), n_head, EPS)
    return common.layer_norm(x, enc_w["norm.weight"], enc_w["norm.bias"], EPS)


def split_ids(seed, n_tokens, n_context, n_target):
    """A seeded disjoint context / target split, both in drawn (unsorted) order."""
    perm = np.random.default_rng(seed).permutation(n_tokens)
    return perm[:n_context].astype(np.int64), perm[n_context:n_context + n_target].astype(np.int64)
