"""Unit test vectors: 3-D RoPE cos/sin tables + rotations, and the LeVJEPA block-causal mask."""
import os

import numpy as np

import common
from common import f64
from positions import (block_causal_allowed, interpolate_rope_positions, rope_axis_dim, rope_tables,
                       rotate_pairs, token_positions)

GRID = (2, 3, 4)  # t, h, w
SUBSET_IDS = [0, 5, 11, 13, 23]
HEAD_DIMS = (64, 80, 32)
ROPE_REF_GRID = 16


def _positions(ids, layout_variant):
    t, h, w = token_positions(ids, GRID[1], GRID[2])
    if layout_variant == "interleaved_interp":
        h, w = interpolate_rope_positions(h, w, GRID[1], GRID[2], ROPE_REF_GRID)
    return t, h, w


def generate_rope():
    out_dir = common.family_dir("rope")
    rng = np.random.default_rng(8001)
    all_ids = np.arange(int(np.prod(GRID)))
    variants = {"tiled": "tiled", "interleaved": "interleaved", "interleaved_interp": "interleaved"}
    files = {}
    for hd in HEAD_DIMS:
        q = rng.standard_normal((len(all_ids), hd)).astype(np.float32)
        common.save_npy(os.path.join(out_dir, f"q_hd{hd}.npy"), q)
        files[f"q_hd{hd}.npy"] = f"q [{len(all_ids)}, {hd}] float32, one row per token id of the full grid"
        for variant, layout in variants.items():
            for tag, ids in (("", all_ids), ("_subset", np.asarray(SUBSET_IDS))):
                cos, sin = rope_tables(*_positions(ids, variant), hd, layout)
                common.save_f32(os.path.join(out_dir, f"cos_{variant}_hd{hd}{tag}.npy"), cos)
                common.save_f32(os.path.join(out_dir, f"sin_{variant}_hd{hd}{tag}.npy"), sin)
                rotated = rotate_pairs(f64(q[ids]), cos, sin)
                common.save_f32(os.path.join(out_dir, f"q_rot_{variant}_hd{hd}{tag}.npy"), rotated)
        files[f"cos_<variant>_hd{hd}[_subset].npy"] = f"[N, {hd}] float32 (rows = ids)"
    return {
        "kind": "rope3d test vectors",
        "grid": {"t": GRID[0], "h": GRID[1], "w": GRID[2]},
        "ids_full": "0..23 (t-major, then h, then w)",
        "ids_subset": SUBSET_IDS,
        "head_dims": list(HEAD_DIMS),
        "axis_dims": {hd: rope_axis_dim(hd) for hd in HEAD_DIMS},
        "variants": {
            "tiled": "V-JEPA 2 / LeVJEPA: cos[j] = cos(pos*w_{j mod d/2}) inside each axis segment",
            "interleaved": "V-JEPA 2.1 predictor: cos[2k] = cos[2k+1] = cos(pos*w_k)",
            "interleaved_interp": f"V-JEPA 2.1 encoder: interleaved, with h' = h*({ROPE_REF_GRID}-1)/(gh-1), "
                                  f"w' = w*({ROPE_REF_GRID}-1)/(gw-1)"},
        "formula": "segments [t | h | w | pass-through] of width d = 2*((hd//3)//2); w_k = 1/10000^(k/(d/2)); "
                   "pass-through cos 1, sin 0; q_rot = q*cos + rot(q)*sin, rot(q)[2k] = -q[2k+1], "
                   "rot(q)[2k+1] = q[2k]. Tables computed in float64, stored float32.",
        "q_rot_subset": "q_rot_<variant>_hd<hd>_subset.npy rotates q rows SUBSET_IDS with the subset tables",
        "files_described": files,
    }


def generate_mask():
    out_dir = common.family_dir("mask")
    n_frames, gh, gw = 3, 2, 2
    allowed = block_causal_allowed(n_frames, gh, gw, n_prefix=1)
    common.save_npy(os.path.join(out_dir, "block_causal_t3_h2_w2_cls.npy"), allowed.astype(np.uint8))
    additive = np.where(allowed, 0.0, -np.inf).astype(np.float32)
    common.save_npy(os.path.join(out_dir, "block_causal_t3_h2_w2_cls_additive.npy"), additive)
    released = block_causal_allowed(16, 14, 14, n_prefix=1)
    return {
        "kind": "LeVJEPA block-causal attention mask",
        "grid": {"t": n_frames, "h": gh, "w": gw, "n_prefix": 1, "n_tokens": int(allowed.shape[0])},
        "file_descriptions": {"block_causal_t3_h2_w2_cls.npy": "uint8 [13, 13], 1 = query row may attend key column",
                  "block_causal_t3_h2_w2_cls_additive.npy": "float32 [13, 13], 0 / -inf (what is added to scores)"},
        "rule": "row 0 (CLS) all open; column 0 closed for rows >= 1; patch i, j (token ids minus 1): open iff "
                "(i // (h*w)) >= (j // (h*w))",
        "open_fraction_released_16x14x14": round(float(released.mean()), 6),
    }
