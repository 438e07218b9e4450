"""Positional encodings in float64: fixed sincos tables (I-JEPA, V-JEPA v1) and the 3-D RoPE of
V-JEPA 2 / 2.1 / LeVJEPA, written from the reference code's semantics (see families.md §1.4, §2.3, §3.4, §4.4).
"""
import numpy as np
import torch

from common import F64


# ----------------------------------------------------------------------------- sincos tables

def sincos_1d(width, positions):
    """[sin(p*w_k) | cos(p*w_k)], w_k = 1/10000^(k/(width/2)), k < width/2 (ijepa/jepa helper)."""
    omega = np.arange(width // 2, dtype=np.float64) / (width / 2.0)
    omega = 1.0 / 10000 ** omega
    angles = np.einsum("m,d->md", np.asarray(positions, dtype=np.float64).reshape(-1), omega)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def sincos_2d_ijepa(embed_dim, grid):
    """I-JEPA table [grid*grid, D]: meshgrid(w, h) puts the column index first -> [emb_w | emb_h]."""
    cols, rows = np.meshgrid(np.arange(grid, dtype=np.float64), np.arange(grid, dtype=np.float64))
    return np.concatenate([sincos_1d(embed_dim // 2, cols), sincos_1d(embed_dim // 2, rows)], axis=1)


def sincos_3d_vjepa(embed_dim, grid, depth, uniform_power=True):
    """V-JEPA v1 table [depth*grid*grid, D]: [emb_t | emb_h | emb_w], each ceil(D/6)*2 wide, cut to D."""
    t, h, w = np.meshgrid(np.arange(depth, dtype=np.float64), np.arange(grid, dtype=np.float64),
                          np.arange(grid, dtype=np.float64), indexing="ij")
    if uniform_power:
        wt = wh = ww = int(np.ceil(embed_dim / 6) * 2)
    else:
        wt, wh, ww = embed_dim // 2, embed_dim // 4, embed_dim // 4
    table = np.concatenate([sincos_1d(wt, t), sincos_1d(wh, h), sincos_1d(ww, w)], axis=1)
    return table[:, :embed_dim]


# ----------------------------------------------------------------------------- 3-D RoPE

def rope_axis_dim(head_dim):
    """Rotated width per axis: 2*((hd//3)//2); the tail hd - 3d stays unrotated."""
    return 2 * ((head_dim // 3) // 2)


def token_positions(ids, grid_h, grid_w):
    """Token id -> (t, h, w) on a (T, grid_h, grid_w) grid, float64."""
    ids = np.asarray(ids, dtype=np.int64)
    per_frame = grid_h * grid_w
    t = ids // per_frame
    rest = ids - t * per_frame
    h = rest // grid_w
    w = rest - h * grid_w
    return t.astype(np.float64), h.astype(np.float64), w.astype(np.float64)


def interpolate_rope_positions(h, w, grid_h, grid_w, ref_grid):
    """V-JEPA 2.1 encoder: h,w rescaled by (ref_grid-1)/(grid-1); a 1-wide axis is left as is."""
    h = h * (ref_grid - 1) / (grid_h - 1) if grid_h > 1 else h
    w = w * (ref_grid - 1) / (grid_w - 1) if grid_w > 1 else w
    return h, w


def rope_tables(t, h, w, head_dim, layout):
    """cos/sin [N, head_dim] for positions (t,h,w); segments [t | h | w | pass-through(cos 1, sin 0)].

    layout 'tiled' (V-JEPA 2, LeVJEPA): the d/2 angles repeated as a block -> entry j uses w_{j mod d/2}.
    layout 'interleaved' (V-JEPA 2.1): each angle repeated twice -> entries 2k, 2k+1 use w_k.
    """
    d = rope_axis_dim(head_dim)
    n = len(t)
    cos = np.ones((n, head_dim), dtype=np.float64)
    sin = np.zeros((n, head_dim), dtype=np.float64)
    omega = 1.0 / 10000 ** (np.arange(d // 2, dtype=np.float64) / (d / 2.0))
    for axis, pos in enumerate((t, h, w)):
        angles = np.asarray(pos, dtype=np.float64)[:, None] * omega[None, :]
        if layout == "tiled":
            angles = np.concatenate([angles, angles], axis=1)
        elif layout == "interleaved":
            angles = np.repeat(angles, 2, axis=1)
        else:
            raise ValueError(f"unknown rope layout {layout}")
        cos[:, axis * d:(axis + 1) * d] = np.cos(angles)
        sin[:, axis * d:(axis + 1) * d] = np.sin(angles)
    return cos, sin


def rotate_pairs(x, cos, sin):
    """x*cos + rot(x)*sin with rot(x)[2k] = -x[2k+1], rot(x)[2k+1] = x[2k] (last axis)."""
    cos, sin = torch.as_tensor(cos, dtype=F64), torch.as_tensor(sin, dtype=F64)
    pairs = x.unflatten(-1, (-1, 2))
    rot = torch.stack((-pairs[..., 1], pairs[..., 0]), dim=-1).flatten(-2)
    return x * cos + rot * sin


def with_prefix_rows(cos, sin, n_prefix):
    """Identity rows (cos 1, sin 0) for prefix tokens (CLS) that the reference leaves unrotated."""
    hd = cos.shape[1]
    return (np.concatenate([np.ones((n_prefix, hd)), cos], axis=0),
            np.concatenate([np.zeros((n_prefix, hd)), sin], axis=0))


def rope_rotator(cos, sin):
    """A rope(q_or_k) callable for common.attention; tables broadcast over heads."""
    return lambda x: rotate_pairs(x, cos, sin)


# ----------------------------------------------------------------------------- block-causal mask

def block_causal_allowed(n_frames, grid_h, grid_w, n_prefix=1):
    """LeVJEPA mask, True = may attend. Patch q sees patch k iff frame(q) >= frame(k); the CLS row
    sees everything; the CLS column is closed to patch queries."""
    per_frame = grid_h * grid_w
    frame = np.arange(n_frames * per_frame) // per_frame
    n = n_prefix + len(frame)
    allowed = np.zeros((n, n), dtype=bool)
    allowed[:n_prefix, :] = True
    allowed[n_prefix:, n_prefix:] = frame[:, None] >= frame[None, :]
    return allowed
