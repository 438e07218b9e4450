"""The float64 RoPE ViT encoder shared by V-JEPA 2, V-JEPA 2.1 and LeVJEPA: tokens in, normed tokens out.

Positions are decoded from token ids on the actual (T, gh, gw) grid; prefix tokens (CLS) get identity
rows (unrotated, as RoPEAttention rotates q/k[..., 1:, :] only).
"""
import numpy as np

import common
from positions import (interpolate_rope_positions, rope_rotator, rope_tables, token_positions,
                       with_prefix_rows)


def rope_for_grid(grid, head_dim, layout, *, n_prefix=0, ref_grid=None):
    """(cos, sin) [n_prefix + T*gh*gw, head_dim]; ref_grid enables 2.1's interpolate_rope on h and w."""
    n_t, n_h, n_w = grid
    t, h, w = token_positions(np.arange(n_t * n_h * n_w), n_h, n_w)
    if ref_grid is not None:
        h, w = interpolate_rope_positions(h, w, n_h, n_w, ref_grid)
    cos, sin = rope_tables(t, h, w, head_dim, layout)
    return with_prefix_rows(cos, sin, n_prefix) if n_prefix else (cos, sin)


def run_blocks(x, weights, *, n_layer, n_head, eps, cos_sin, allowed=None):
    """L pre-LN blocks with 3-D RoPE on q/k; no final norm (the families differ there)."""
    rope = rope_rotator(*cos_sin)
    for i in range(n_layer):
        x = common.vit_block(x, common.block_params(weights, f"blocks.{i}."), n_head, eps, rope=rope,
                             allowed=allowed)
    return x
