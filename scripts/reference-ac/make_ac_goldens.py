#!/usr/bin/python3
"""Float64 reference for V-JEPA 2-AC (action-conditioned predictor, world-model rollout, CEM planner,
pose update) and the goldens under fixtures/reference/vjepa2_ac/<case>/.

    /usr/bin/python3 scripts/reference-ac/make_ac_goldens.py [--case h32|h64 ...]

Semantics follow facebookresearch/vjepa2 (src/models/ac_predictor.py VisionTransformerPredictorAC,
src/models/utils/modules.py ACRoPEAttention / ACBlock, src/masks/utils.py
build_action_block_causal_attention_mask, notebooks/utils/world_model_wrapper.py, notebooks/utils/mpc_utils.py
cem / compute_new_pose), written here from a description of that code, in float64 torch.
Weights are drawn in float32 (seeded) and upcast. Deterministic: a rerun rewrites identical bytes.
"""
import argparse
import math
import os
import sys
from collections import OrderedDict

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from scipy.spatial.transform import Rotation  # noqa: E402

import common  # noqa: E402
from common import F64, f64  # noqa: E402
from positions import rope_axis_dim, rope_tables, rotate_pairs  # noqa: E402
from rope_encoder import rope_for_grid, run_blocks  # noqa: E402

LN_EPS = 1e-6
REPS_LN_EPS = 1e-5
COND_GAIN = 5.0  # action/state/extrinsics encoder weights: std COND_GAIN / sqrt(fan_in)
CKPT_NAME = "vjepa2-ac.pt"

# Sizes: enc ffn is int(64 * 1.0) to keep the Conv3d-dominated encoder small; h64's predictor ffn is
# int(128 * 0.5) so the folder stays under 1.5 MB (the ratio-4 predictor MLP is covered by h32).
CASES = OrderedDict([
    ("h32", dict(seed=7101, enc_embed_dim=64, enc_n_layer=2, enc_n_head=2, enc_ffn_dim=64, img_size=48,
                 patch_size=16, tubelet_size=2, pred_embed_dim=64, pred_n_layer=2, pred_n_head=2,
                 pred_ffn_dim=256, use_extrinsics=False, steps=3, cem2=True)),
    ("h64", dict(seed=7201, enc_embed_dim=64, enc_n_layer=2, enc_n_head=2, enc_ffn_dim=64, img_size=48,
                 patch_size=16, tubelet_size=2, pred_embed_dim=128, pred_n_layer=2, pred_n_head=2,
                 pred_ffn_dim=64, use_extrinsics=True, steps=3, cem2=False)),
])

CEM_SETTINGS = OrderedDict([("rollout", 2), ("samples", 16), ("topk", 4), ("cem_steps", 3),
                            ("momentum_mean", 0.15), ("momentum_std", 0.15), ("momentum_mean_gripper", 0.15),
                            ("momentum_std_gripper", 0.15), ("maxnorm", 0.05)])
MIN_REL_GAP = 3e-4  # stricter than the 1e-4 asked for


# ----------------------------------------------------------------------------- weights

def prefixed(weights, prefix):
    return OrderedDict((prefix + k, v) for k, v in weights.items())


def make_encoder_weights(wm, hp):
    dim, patch, tub = hp["enc_embed_dim"], hp["patch_size"], hp["tubelet_size"]
    w = OrderedDict()
    w["patch_embed.proj.weight"] = wm.normal((dim, 3, tub, patch, patch), 1.0 / math.sqrt(3 * tub * patch * patch))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    for i in range(hp["enc_n_layer"]):
        for k, v in common.make_block_weights(wm, dim, hp["enc_ffn_dim"]).items():
            w[f"blocks.{i}.{k}"] = v
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    return w


def make_decoy_encoder(wm, weights):
    """target_encoder: same shapes; every 1-D tensor (biases, norms) redrawn, the big matrices shared
    (torch.save stores a shared storage once, which keeps the folder small)."""
    decoy = OrderedDict()
    for k, v in weights.items():
        if v.dim() == 1:
            if k.endswith(".weight"):  # LayerNorm scale
                decoy[k] = wm.normal(tuple(v.shape), 0.1, mean=1.0)
            else:
                decoy[k] = wm.normal(tuple(v.shape), 0.3)
        else:
            decoy[k] = v
    return decoy


def cond_linear(wm, out_dim, in_dim):
    return wm.normal((out_dim, in_dim), COND_GAIN / math.sqrt(in_dim)), wm.normal((out_dim,), 0.02)


def make_predictor_weights(wm, hp):
    dim, pdim = hp["enc_embed_dim"], hp["pred_embed_dim"]
    w = OrderedDict()
    w["predictor_embed.weight"], w["predictor_embed.bias"] = wm.linear(pdim, dim)
    w["action_encoder.weight"], w["action_encoder.bias"] = cond_linear(wm, pdim, 7)
    w["state_encoder.weight"], w["state_encoder.bias"] = cond_linear(wm, pdim, 7)
    w["extrinsics_encoder.weight"], w["extrinsics_encoder.bias"] = cond_linear(wm, pdim, 6)
    for i in range(hp["pred_n_layer"]):
        for k, v in common.make_block_weights(wm, pdim, hp["pred_ffn_dim"]).items():
            w[f"predictor_blocks.{i}.{k}"] = v
    w["predictor_norm.weight"], w["predictor_norm.bias"] = wm.layer_norm(pdim)
    w["predictor_proj.weight"], w["predictor_proj.bias"] = wm.linear(dim, pdim)
    return w


# ----------------------------------------------------------------------------- encoder

def ln_noaffine(x, eps=REPS_LN_EPS):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)


def encode_frame(w, hp, frame):
    """One frame [3,H,W] -> 2-frame clip (repeated in time) -> tokens [HW, D] (raw, after `norm`)."""
    clip = f64(frame)[None, :, None].repeat(1, 1, hp["tubelet_size"], 1, 1)  # [1,3,2,H,W]
    x = common.patch_embed_3d(clip, w["patch_embed.proj.weight"], w["patch_embed.proj.bias"])
    g = hp["img_size"] // hp["patch_size"]
    hd = hp["enc_embed_dim"] // hp["enc_n_head"]
    x = run_blocks(x, w, n_layer=hp["enc_n_layer"], n_head=hp["enc_n_head"], eps=LN_EPS,
                   cos_sin=rope_for_grid((1, g, g), hd, "tiled"))
    return common.layer_norm(x, w["norm.weight"], w["norm.bias"], LN_EPS)


# ----------------------------------------------------------------------------- predictor

def action_mask(n_steps, hw, cond):
    """build_action_block_causal_attention_mask: True = attend; block t1 sees block t2 iff t2 <= t1."""
    step = np.arange(n_steps * (cond + hw)) // (cond + hw)
    return step[:, None] >= step[None, :]


def predictor_rope(n_steps, gh, gw, cond, head_dim, grid_size, cond_all_axes=False):
    """cos/sin [N, hd] in sequence order (per step: cond tokens, then gh*gw frame tokens).

    Frame token id i: t = i // (gh*gw), h, w from the remainder, h *= grid_size/gh, w *= grid_size/gw;
    segments [t | h | w | pass]. Cond tokens: only [0, d) rotates, with their step t (cos 1 / sin 0 after).
    cond_all_axes (negative control): cond tokens rotate all three segments with h = w = t."""
    hw = gh * gw
    ids = np.arange(n_steps * hw)
    t = (ids // hw).astype(np.float64)
    h = ((ids % hw) // gw).astype(np.float64) * (grid_size / gh)
    w = (ids % gw).astype(np.float64) * (grid_size / gw)
    cos_f, sin_f = rope_tables(t, h, w, head_dim, "tiled")
    steps = np.arange(n_steps, dtype=np.float64)
    d = rope_axis_dim(head_dim)
    if cond_all_axes:
        cos_c, sin_c = rope_tables(steps, steps, steps, head_dim, "tiled")
    else:
        cos_c, sin_c = rope_tables(steps, np.zeros(n_steps), np.zeros(n_steps), head_dim, "tiled")
        cos_c[:, d:] = 1.0  # explicit: nothing from d on rotates for conditioning tokens
        sin_c[:, d:] = 0.0
    cos_rows, sin_rows = [], []
    for s in range(n_steps):
        for _ in range(cond):
            cos_rows.append(cos_c[s])
            sin_rows.append(sin_c[s])
        cos_rows.extend(cos_f[s * hw:(s + 1) * hw])
        sin_rows.extend(sin_f[s * hw:(s + 1) * hw])
    return np.stack(cos_rows), np.stack(sin_rows)


def attention(x, p, n_head, cos, sin, allowed):
    """x [B, N, P]; one qkv Linear for all tokens; RoPE on q,k via per-row tables; bool mask (True = attend)."""
    b, n, dim = x.shape
    hd = dim // n_head
    qkv = common.linear(x, p["attn.qkv.weight"], p["attn.qkv.bias"]).reshape(b, n, 3, n_head, hd)
    qkv = qkv.permute(2, 0, 3, 1, 4)  # [3, B, H, N, hd]
    q, k, v = qkv[0], qkv[1], qkv[2]
    q, k = rotate_pairs(q, cos, sin), rotate_pairs(k, cos, sin)
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
    if allowed is not None:
        scores = scores.masked_fill(~torch.as_tensor(allowed), float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v  # [B, H, N, hd]
    out = out.permute(0, 2, 1, 3).reshape(b, n, dim)
    return common.linear(out, p["attn.proj.weight"], p["attn.proj.bias"])


def predictor_forward(w, hp, x, actions, states, extrinsics=None, *, use_mask=True, cond_all_axes=False):
    """x [B, T*HW, enc_D], actions/states [B,T,7], extrinsics [B,T,6] -> [B, T*HW, enc_D] (float64)."""
    g = hp["img_size"] // hp["patch_size"]
    hw = g * g
    pdim, n_head = hp["pred_embed_dim"], hp["pred_n_head"]
    x = common.linear(f64(x), w["predictor_embed.weight"], w["predictor_embed.bias"])
    b, n_ctx, _ = x.shape
    n_steps = n_ctx // hw
    x = x.view(b, n_steps, hw, pdim)
    a = common.linear(f64(actions), w["action_encoder.weight"], w["action_encoder.bias"])[:, :, None]
    s = common.linear(f64(states), w["state_encoder.weight"], w["state_encoder.bias"])[:, :, None]
    parts = [a, s]
    if hp["use_extrinsics"]:
        parts.append(common.linear(f64(extrinsics), w["extrinsics_encoder.weight"],
                                   w["extrinsics_encoder.bias"])[:, :, None])
    cond = len(parts)
    x = torch.cat(parts + [x], dim=2).flatten(1, 2)  # [B, T*(c+HW), P]
    cos, sin = predictor_rope(n_steps, g, g, cond, pdim // n_head, grid_size=g, cond_all_axes=cond_all_axes)
    allowed = action_mask(n_steps, hw, cond) if use_mask else None
    for i in range(hp["pred_n_layer"]):
        p = common.block_params(w, f"predictor_blocks.{i}.")
        x = x + attention(common.layer_norm(x, p["norm1.weight"], p["norm1.bias"], LN_EPS), p, n_head, cos, sin,
                          allowed)
        h = common.layer_norm(x, p["norm2.weight"], p["norm2.bias"], LN_EPS)
        x = x + common.linear(common.gelu_erf(common.linear(h, p["mlp.fc1.weight"], p["mlp.fc1.bias"])),
                              p["mlp.fc2.weight"], p["mlp.fc2.bias"])
    x = x.view(b, n_steps, cond + hw, pdim)[:, :, cond:].flatten(1, 2)
    x = common.layer_norm(x, w["predictor_norm.weight"], w["predictor_norm.bias"], LN_EPS)
    return common.linear(x, w["predictor_proj.weight"], w["predictor_proj.bias"])


# ----------------------------------------------------------------------------- self-check: a second attention

def _rotate_segment(x, pos):
    """rotate_queries_or_keys written directly: x [..., N, dd], pos [N]; tiled sin/cos (.repeat(.., 2))."""
    dd = x.shape[-1]
    omega = 1.0 / 10000 ** (torch.arange(dd // 2, dtype=F64) / (dd / 2.0))
    freq = torch.as_tensor(pos, dtype=F64)[:, None] * omega[None, :]
    sin, cos = freq.sin().repeat(1, 2), freq.cos().repeat(1, 2)
    y = x.unflatten(-1, (-1, 2))
    y = torch.stack((-y[..., 1], y[..., 0]), dim=-1).flatten(-2)
    return x * cos + y * sin


def _loop_mask(n_steps, hw, cond):
    n = n_steps * (cond + hw)
    mask = torch.zeros(n, n, dtype=torch.bool)
    blk = cond + hw
    for t1 in range(n_steps):
        for t2 in range(t1 + 1):
            mask[t1 * blk:(t1 + 1) * blk, t2 * blk:(t2 + 1) * blk] = True
    return mask


def attention_split(x, p, n_head, n_steps, gh, gw, cond, grid_size):
    """ACRoPEAttention's structure: conditioning tokens split out per index, q/k[..., :d] rotated with
    arange(T); frame tokens rotated per segment with separate_positions; merged back per step."""
    b, n, dim = x.shape
    hd = dim // n_head
    d = rope_axis_dim(hd)
    hw = gh * gw
    xs = x.view(b, n_steps, cond + hw, dim)

    def qkv_of(tokens):
        out = common.linear(tokens, p["attn.qkv.weight"], p["attn.qkv.bias"])
        out = out.unflatten(-1, (3, n_head, hd)).permute(2, 0, 3, 1, 4)
        return out[0], out[1], out[2]

    steps = torch.arange(n_steps, dtype=F64)
    cq, ck, cv = [], [], []
    for i in range(cond):
        q, k, v = qkv_of(xs[:, :, i])
        cq.append(torch.cat([_rotate_segment(q[..., :d], steps), q[..., d:]], -1))
        ck.append(torch.cat([_rotate_segment(k[..., :d], steps), k[..., d:]], -1))
        cv.append(v)
    ids = torch.arange(n_steps * hw)
    t_ids = ids // hw
    h_ids = (ids - hw * t_ids) // gw
    w_ids = ids - hw * t_ids - gw * h_ids
    h_pos, w_pos = h_ids.to(F64) * (grid_size / gh), w_ids.to(F64) * (grid_size / gw)
    q, k, v = qkv_of(xs[:, :, cond:].flatten(1, 2))

    def rot3(z):
        return torch.cat([_rotate_segment(z[..., :d], t_ids.to(F64)), _rotate_segment(z[..., d:2 * d], h_pos),
                          _rotate_segment(z[..., 2 * d:3 * d], w_pos), z[..., 3 * d:]], -1)
    q, k = rot3(q), rot3(k)

    def merge(frame, conds):
        frame = frame.reshape(b, n_head, n_steps, hw, hd)
        conds = torch.stack(conds, dim=3)  # [B, H, T, c, hd]
        return torch.cat([conds, frame], dim=3).flatten(2, 3)
    q, k, v = merge(q, cq), merge(k, ck), merge(v, cv)
    scores = (q @ k.transpose(-1, -2)) * hd ** -0.5
    scores = scores.masked_fill(~_loop_mask(n_steps, hw, cond), float("-inf"))
    out = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, n, dim)
    return common.linear(out, p["attn.proj.weight"], p["attn.proj.bias"])


def predictor_forward_split(w, hp, x, actions, states, extrinsics=None):
    """predictor_forward with attention_split in place of the table-driven attention."""
    global attention
    table_attention = attention
    g = hp["img_size"] // hp["patch_size"]
    n_steps = x.shape[1] // (g * g)
    cond = 3 if hp["use_extrinsics"] else 2
    attention = lambda xx, p, nh, cos, sin, allowed: attention_split(xx, p, nh, n_steps, g, g, cond, g)  # noqa: E731
    try:
        return predictor_forward(w, hp, x, actions, states, extrinsics)
    finally:
        attention = table_attention


# ----------------------------------------------------------------------------- world model

def compute_new_pose(pose, action):
    """pose, action [B,1,7] float64 -> [B,1,7]; Euler 'xyz' (extrinsic), R_new = R(action) @ R(pose)."""
    pose = np.asarray(pose, dtype=np.float64)[:, 0]
    action = np.asarray(action, dtype=np.float64)[:, 0]
    xyz = pose[:, :3] + action[:, :3]
    angles = []
    for th, dth in zip(pose[:, 3:6], action[:, 3:6]):
        mat = Rotation.from_euler("xyz", dth).as_matrix() @ Rotation.from_euler("xyz", th).as_matrix()
        angles.append(Rotation.from_matrix(mat).as_euler("xyz"))
    grip = np.clip(pose[:, 6:7] + action[:, 6:7], 0.0, 1.0)
    return np.concatenate([xyz, np.stack(angles), grip], axis=-1)[:, None]


def step_predictor(w, hp, reps, actions, poses, extrinsics):
    """reps [B,T,HW,D], actions/poses [B,T,7] -> (next rep [B,1,HW,D] normalised, next pose [B,1,7])."""
    b, n_steps, hw, dim = reps.shape
    ext = None
    if hp["use_extrinsics"]:
        ext = f64(extrinsics).reshape(1, 1, 6).expand(b, n_steps, 6)
    nxt = predictor_forward(w, hp, reps.flatten(1, 2), actions, poses, ext)[:, -hw:]
    nxt = ln_noaffine(nxt).view(b, 1, hw, dim)
    new_pose = torch.from_numpy(compute_new_pose(poses[:, -1:].numpy(), actions[:, -1:].numpy()))
    return nxt, new_pose


def rollout(w, hp, context, pose, actions, extrinsics):
    """Autoregressive rollout as CEM's inner loop: step h feeds all h+1 frames/actions/poses."""
    frames, poses = f64(context), f64(pose)
    actions = f64(actions)
    for h in range(actions.shape[1]):
        nxt, new_pose = step_predictor(w, hp, frames, actions[:, :h + 1], poses, extrinsics)
        frames = torch.cat([frames, nxt], dim=1)
        poses = torch.cat([poses, new_pose], dim=1)
    return frames, poses


def round_small(x, thresh):
    return torch.where(x.abs() < thresh, torch.zeros_like(x), x)


def cem(w, hp, context, pose, goal, noise, settings, axis, close_gripper, extrinsics):
    """mpc_utils.cem with torch.randn replaced by noise[step][h] ([S,4], float32 upcast)."""
    roll, n_samp, topk = settings["rollout"], settings["samples"], settings["topk"]
    mm, ms = settings["momentum_mean"], settings["momentum_std"]
    mmg, msg = settings["momentum_mean_gripper"], settings["momentum_std_gripper"]
    maxnorm = settings["maxnorm"]
    mean = torch.zeros(roll, 4, dtype=F64)
    std = torch.tensor([[maxnorm] * 3 + [1.0]] * roll, dtype=F64)
    for ax, val in axis.items():
        mean[:, ax] = val
    hw, dim = context.shape[-2:]
    goal = f64(goal)
    record = {"energies": [], "elites": [], "mean": [], "std": []}
    for step in range(settings["cem_steps"]):
        frames = f64(context).expand(n_samp, 1, hw, dim).clone()
        poses = f64(pose).expand(n_samp, 1, 7).clone()
        action_traj = None
        for h in range(roll):
            samp = f64(noise[step, h]) * std[h] + mean[h]
            samp[:, :3] = samp[:, :3].clamp(-maxnorm, maxnorm)
            samp[:, 3] = samp[:, 3].clamp(-0.75, 0.75)
            for ax, val in axis.items():
                samp[:, ax] = val
            act = torch.cat([samp[:, :3], torch.zeros(n_samp, 3, dtype=F64), samp[:, 3:4]], dim=1)
            if close_gripper is not None and h >= close_gripper:
                act[:, -1] = 1.0
            act = act[:, None]
            action_traj = act if action_traj is None else torch.cat([action_traj, act], dim=1)
            nxt, new_pose = step_predictor(w, hp, frames, action_traj, poses, extrinsics)
            frames = torch.cat([frames, nxt], dim=1)
            poses = torch.cat([poses, new_pose], dim=1)
        energy = (frames[:, -1] - goal[:, 0]).abs().flatten(1).mean(1)  # [S]
        elites = torch.argsort(energy)[:topk]
        top = action_traj[elites]  # [k, roll, 7]
        mean_sel, std_sel = top.mean(0), top.std(0)
        mean = torch.cat([mean_sel[:, :3] * (1 - mm) + mean[:, :3] * mm,
                          mean_sel[:, -1:] * (1 - mmg) + mean[:, -1:] * mmg], dim=-1)
        std = torch.cat([std_sel[:, :3] * (1 - ms) + std[:, :3] * ms,
                         std_sel[:, -1:] * (1 - msg) + std[:, -1:] * msg], dim=-1)
        record["energies"].append(energy.clone())
        record["elites"].append(elites.clone())
        record["mean"].append(mean.clone())
        record["std"].append(std.clone())
    action = torch.cat([mean[:, :3], torch.zeros(roll, 3, dtype=F64), round_small(mean[:, -1:], 0.25)], -1)[None]
    return action, {k: torch.stack(v) for k, v in record.items()}


def gap_report(energies, topk):
    """Per step: the energy gap between the topk-th and (topk+1)-th smallest, and the smallest gap
    between consecutive sorted energies among the first topk+1 (elite order)."""
    out = []
    for e in energies.numpy():
        srt = np.sort(e)
        gap = float(srt[topk] - srt[topk - 1])
        inner = float(np.min(np.diff(srt[:topk + 1])))
        out.append({"kth": float(srt[topk - 1]), "kth_plus_1": float(srt[topk]), "gap": gap,
                    "rel_gap": gap / float(srt[topk]), "min_consecutive_gap_top_k_plus_1": inner,
                    "min_consecutive_rel_gap": inner / float(srt[topk])})
    return out


def cem_search(w, hp, context, pose, goal, base_seed, axis, close_gripper, extrinsics):
    """First noise seed from base_seed on whose every step has boundary and in-elite relative gaps
    >= MIN_REL_GAP (deterministic)."""
    st = CEM_SETTINGS
    shape = (st["cem_steps"], st["rollout"], st["samples"], 4)
    for seed in range(base_seed, base_seed + 200):
        noise = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        action, rec = cem(w, hp, context, pose, goal, noise, st, axis, close_gripper, extrinsics)
        gaps = gap_report(rec["energies"], st["topk"])
        if all(g["rel_gap"] >= MIN_REL_GAP and g["min_consecutive_rel_gap"] >= MIN_REL_GAP for g in gaps):
            return seed, noise, action, rec, gaps, seed - base_seed
    raise RuntimeError("no CEM noise seed with robust elite ranking")


def save_cem(out_dir, prefix, noise, action, rec):
    common.save_npy(os.path.join(out_dir, f"{prefix}_noise.npy"), noise)
    common.save_f32(os.path.join(out_dir, f"{prefix}_energies.npy"), rec["energies"])
    np.save(os.path.join(out_dir, f"{prefix}_elites.npy"), rec["elites"].numpy().astype(np.int64))
    common.save_f32(os.path.join(out_dir, f"{prefix}_mean.npy"), rec["mean"])
    common.save_f32(os.path.join(out_dir, f"{prefix}_std.npy"), rec["std"])
    common.save_f32(os.path.join(out_dir, f"{prefix}_action.npy"), action)


# ----------------------------------------------------------------------------- pose cases

def pose_cases():
    half_pi = math.pi / 2
    poses = np.array([
        [0.1, -0.2, 0.3, 0.5, -0.4, 0.7, 0.2],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.3, 0.1, -0.1, -1.2, 0.8, 2.5, 0.9],
        [-0.2, 0.4, 0.2, 0.3, half_pi - 0.01, -0.6, 0.5],    # near gimbal lock (+)
        [0.05, 0.05, 0.05, -0.7, -(half_pi - 0.01), 1.1, 0.1],  # near gimbal lock (-)
        [0.0, -0.3, 0.1, math.pi - 0.02, 0.2, -(math.pi - 0.03), 0.6],  # roll/yaw near +-pi
        [0.2, 0.2, -0.2, 1.0, -0.3, 3.1, 0.95],              # yaw pushed across +pi
        [-0.1, 0.0, 0.4, -2.9, 0.1, -0.4, 0.05],             # roll pushed across -pi
    ])
    actions = np.array([
        [0.01, -0.02, 0.03, 0.1, -0.05, 0.08, 0.3],
        [0.05, 0.05, -0.05, 0.2, 0.1, -0.3, -0.4],
        [-0.03, 0.02, 0.01, -0.15, 0.12, 0.2, 0.5],
        [0.0, 0.01, -0.01, 0.05, 0.005, -0.04, 0.2],
        [0.02, 0.0, 0.0, -0.03, -0.004, 0.06, -0.3],
        [-0.01, 0.01, 0.02, 0.04, -0.05, -0.05, 0.1],
        [0.0, 0.0, 0.01, 0.02, 0.03, 0.1, 0.2],
        [0.01, 0.01, 0.01, -0.3, 0.05, 0.02, -0.2],
    ])
    return poses.astype(np.float32), actions.astype(np.float32)


# ----------------------------------------------------------------------------- one case

def max_diff(a, b):
    return float((a - b).abs().max())


def generate(name):
    hp = CASES[name]
    seed = hp["seed"]
    out_dir = os.path.join(common.FIXTURE_ROOT, "vjepa2_ac", name)
    os.makedirs(out_dir, exist_ok=True)
    for entry in os.listdir(out_dir):
        if os.path.isfile(os.path.join(out_dir, entry)):
            os.remove(os.path.join(out_dir, entry))
    g = hp["img_size"] // hp["patch_size"]
    hw, dim, n_steps = g * g, hp["enc_embed_dim"], hp["steps"]
    cond = 3 if hp["use_extrinsics"] else 2

    wm = common.WeightMaker(seed)
    enc = make_encoder_weights(wm, hp)
    pred = make_predictor_weights(wm, hp)
    decoy = make_decoy_encoder(common.WeightMaker(seed + 50), enc)
    common.torch_save_deterministic(OrderedDict([
        ("encoder", prefixed(enc, "module.backbone.")),
        ("predictor", prefixed(pred, "module.backbone.")),
        ("target_encoder", prefixed(decoy, "module.backbone.")),
        ("epoch", 0)]), os.path.join(out_dir, CKPT_NAME))

    rng = np.random.default_rng(seed + 1)
    frame = rng.standard_normal((3, hp["img_size"], hp["img_size"])).astype(np.float32)
    goal_frame = rng.standard_normal((3, hp["img_size"], hp["img_size"])).astype(np.float32)
    tokens = rng.standard_normal((1, n_steps * hw, dim)).astype(np.float32)
    actions = (0.5 * rng.standard_normal((1, n_steps, 7))).astype(np.float32)
    states = (0.5 * rng.standard_normal((1, n_steps, 7))).astype(np.float32)
    extrinsics = (0.5 * rng.standard_normal((1, n_steps, 6))).astype(np.float32) if hp["use_extrinsics"] else None
    # the constant camera extrinsics fed to every step of the rollout / CEM (h64 only; see manifest)
    wm_ext = (0.5 * rng.standard_normal((6,))).astype(np.float32) if hp["use_extrinsics"] else None

    # -- encoder
    raw = encode_frame(enc, hp, frame)
    frame_tokens = ln_noaffine(raw)
    decoy_tokens = ln_noaffine(encode_frame(decoy, hp, frame))
    goal_tokens = ln_noaffine(encode_frame(enc, hp, goal_frame))
    common.save_npy(os.path.join(out_dir, "frame.npy"), frame)
    common.save_npy(os.path.join(out_dir, "goal_frame.npy"), goal_frame)
    common.save_f32(os.path.join(out_dir, "frame_tokens_raw.npy"), raw)
    common.save_f32(os.path.join(out_dir, "frame_tokens.npy"), frame_tokens)

    # -- predictor
    out = predictor_forward(pred, hp, tokens, actions, states, extrinsics)
    pert_actions = actions.copy()
    pert_actions[0, 1, :] += 0.5
    out_pert = predictor_forward(pred, hp, tokens, pert_actions, states, extrinsics)
    no_mask = predictor_forward(pred, hp, tokens, actions, states, extrinsics, use_mask=False)
    cond_rot = predictor_forward(pred, hp, tokens, actions, states, extrinsics, cond_all_axes=True)
    swapped = predictor_forward(pred, hp, tokens, states, actions, extrinsics)
    mask = action_mask(n_steps, hw, cond)
    split = predictor_forward_split(pred, hp, tokens, actions, states, extrinsics)
    self_checks = OrderedDict([
        ("pred_vs_split_attention_max_abs_diff", max_diff(split, out)),
        ("mask_vs_loop_mask_equal", bool((torch.from_numpy(mask) == _loop_mask(n_steps, hw, cond)).all())),
        ("pred_perturbed_step0_max_abs_diff", max_diff(out_pert[:, :hw], out[:, :hw]))])
    common.save_npy(os.path.join(out_dir, "tokens.npy"), tokens)
    common.save_npy(os.path.join(out_dir, "actions.npy"), actions)
    common.save_npy(os.path.join(out_dir, "states.npy"), states)
    if extrinsics is not None:
        common.save_npy(os.path.join(out_dir, "extrinsics.npy"), extrinsics)
    common.save_f32(os.path.join(out_dir, "pred.npy"), out)
    common.save_f32(os.path.join(out_dir, "pred_perturbed.npy"), out_pert)
    common.save_npy(os.path.join(out_dir, "mask.npy"), mask.astype(np.uint8))

    # -- rollout
    context = frame_tokens.view(1, 1, hw, dim)
    pose = torch.tensor([[[0.1, -0.2, 0.3, 0.5, -0.4, 0.7, 0.2]]], dtype=torch.float32)
    roll_actions = torch.tensor([[[0.02, -0.01, 0.03, 0.1, -0.08, 0.12, 0.3],
                                  [-0.03, 0.04, 0.01, -0.05, 0.11, -0.09, 0.4],
                                  [0.01, 0.02, -0.04, 0.13, 0.06, 0.1, -0.25]]], dtype=torch.float32)
    common.save_f32(os.path.join(out_dir, "rollout_context.npy"), context)
    # context / goal are used as the float32 the fixture stores, so a test feeds exactly the same inputs
    context32 = torch.from_numpy(np.load(os.path.join(out_dir, "rollout_context.npy")))
    frames, poses = rollout(pred, hp, context32, pose, roll_actions, wm_ext)
    common.save_npy(os.path.join(out_dir, "rollout_pose.npy"), pose.numpy())
    common.save_npy(os.path.join(out_dir, "rollout_actions.npy"), roll_actions.numpy())
    common.save_f32(os.path.join(out_dir, "rollout_frames.npy"), frames[:, 1:])
    common.save_f32(os.path.join(out_dir, "rollout_poses.npy"), poses)
    if wm_ext is not None:
        common.save_npy(os.path.join(out_dir, "rollout_extrinsics.npy"), wm_ext)

    # -- CEM
    goal = goal_tokens.view(1, 1, hw, dim).to(torch.float32)
    common.save_npy(os.path.join(out_dir, "cem_goal.npy"), goal.numpy())
    cem_runs = OrderedDict()
    runs = [("cem", {}, None, seed + 10)]
    if hp["cem2"]:
        runs.append(("cem2", {1: 0.0}, 1, seed + 500))
    for prefix, axis, close_gripper, base in runs:
        nseed, noise, action, rec, gaps, tries = cem_search(pred, hp, context32, pose, goal, base, axis,
                                                            close_gripper, wm_ext)
        save_cem(out_dir, prefix, noise, action, rec)
        cem_runs[prefix] = OrderedDict([
            ("settings", dict(CEM_SETTINGS, axis={str(k): v for k, v in axis.items()}, close_gripper=close_gripper)),
            ("noise_seed", nseed), ("noise_seeds_rejected", tries),
            ("noise", f"{prefix}_noise.npy: float32 numpy default_rng(noise_seed).standard_normal("
                      f"[cem_steps, rollout, samples, 4]); noise[step][h] replaces torch.randn(samples, 4)"),
            ("elites_final_step", rec["elites"][-1].tolist()),
            ("action", [[round(float(v), 8) for v in row] for row in action[0]]),
            ("gap_report", gaps)])

    # -- pose cases
    pc, pa = pose_cases()
    pn = compute_new_pose(pc[:, None], pa[:, None])[:, 0]
    common.save_npy(os.path.join(out_dir, "pose_cases.npy"), pc)
    common.save_npy(os.path.join(out_dir, "pose_actions.npy"), pa)
    common.save_f32(os.path.join(out_dir, "pose_next.npy"), pn)

    pdim, pheads = hp["pred_embed_dim"], hp["pred_n_head"]
    phd = pdim // pheads
    d = rope_axis_dim(phd)
    ehd = dim // hp["enc_n_head"]
    n_seq = n_steps * (cond + hw)
    step_diffs = [max_diff(out_pert[:, s * hw:(s + 1) * hw], out[:, s * hw:(s + 1) * hw]) for s in range(n_steps)]
    hparams = OrderedDict([
        ("enc_embed_dim", dim), ("enc_n_layer", hp["enc_n_layer"]), ("enc_n_head", hp["enc_n_head"]),
        ("enc_head_dim", ehd), ("enc_ffn_dim", hp["enc_ffn_dim"]), ("img_size", hp["img_size"]),
        ("patch_size", hp["patch_size"]), ("tubelet_size", hp["tubelet_size"]),
        ("pred_embed_dim", pdim), ("pred_n_layer", hp["pred_n_layer"]), ("pred_n_head", pheads),
        ("pred_head_dim", phd), ("pred_ffn_dim", hp["pred_ffn_dim"]), ("use_extrinsics", hp["use_extrinsics"]),
        ("cond_tokens", cond), ("grid_size", g), ("steps", n_steps), ("ln_eps", LN_EPS),
        ("reps_ln_eps", REPS_LN_EPS), ("rope_layout", "tiled"), ("rope_theta", 10000.0),
        ("enc_rope_axis_dim", rope_axis_dim(ehd)), ("pred_rope_axis_dim", d), ("action_dim", 7),
        ("state_dim", 7), ("extrinsics_dim", 6), ("seed", seed), ("qk_gain", common.QK_GAIN),
        ("cond_encoder_gain", COND_GAIN)])
    shapes = OrderedDict([
        ("frame", [3, hp["img_size"], hp["img_size"]]), ("frame_tokens", [hw, dim]), ("tokens", [1, n_steps * hw, dim]),
        ("actions", [1, n_steps, 7]), ("states", [1, n_steps, 7]), ("pred", [1, n_steps * hw, dim]),
        ("mask", [n_seq, n_seq]), ("rollout_context", [1, 1, hw, dim]), ("rollout_frames", [1, 3, hw, dim]),
        ("rollout_poses", [1, 4, 7]), ("cem_noise", [3, 2, 16, 4]), ("cem_energies", [3, 16]),
        ("cem_elites", [3, 4]), ("cem_mean", [3, 2, 4]), ("cem_std", [3, 2, 4]), ("cem_action", [1, 2, 7]),
        ("pose_cases", [8, 7])])
    if hp["use_extrinsics"]:
        shapes["extrinsics"] = [1, n_steps, 6]
        shapes["rollout_extrinsics"] = [6]
    manifest = OrderedDict([
        ("family", "vjepa2_ac"), ("case", name),
        ("generated_by", f"/usr/bin/python3 scripts/reference-ac/make_ac_goldens.py --case {name}"),
        ("torch_version", torch.__version__), ("numpy_version", np.__version__),
        ("scipy_version", __import__("scipy").__version__),
        ("source_layout", "facebookresearch/vjepa2 AC .pt (torch zip pickle): {encoder, predictor, target_encoder, "
                          "epoch}; every name 'module.backbone.' + the module's own name"),
        ("checkpoint", [CKPT_NAME]),
        ("checkpoint_entry_used", "encoder (as _make_vjepa2_ac_model) + predictor"),
        ("target_encoder_note", "decoy: same shapes; every 1-D tensor (biases, LayerNorm) redrawn from seed+50, "
                                "the matrices shared with encoder (stored once); encoding with it gives the cosine "
                                "in negative_controls"),
        ("hparams", hparams), ("shapes", shapes),
        ("encoder", "frame [3,H,W] repeated to a 2-frame clip [1,3,2,H,W] -> Conv3d tubelet 2 -> 2 pre-LN blocks, "
                    "3-D RoPE tiled on grid (1, g, g) -> norm (eps 1e-6) = frame_tokens_raw -> layer_norm without "
                    "affine eps 1e-5 = frame_tokens"),
        ("predictor", "predictor_embed; per step [a_t, s_t" + (", e_t" if cond == 3 else "") + ", HW frame tokens]; "
                      "blocks pre-LN with ACRoPE (frame tokens: t,h,w segments; conditioning tokens: only [0,d) "
                      "with their step t) and the block-causal mask; drop conditioning tokens; predictor_norm; "
                      "predictor_proj"),
        ("mask", "mask.npy uint8 [N,N], N = steps*(cond_tokens+HW), 1 = query row may attend key column: "
                 "step(key) <= step(query)"),
        ("pred_perturbed", "actions[0,1,:] += 0.5; per-step max|diff| vs pred (step 0 must be 0): "
                           + str([float(f"{v:.3e}") for v in step_diffs])),
        ("rollout", "step h: predictor(frames[:, :h+1].flatten(1,2), actions[:, :h+1], poses[:, :h+1])[:, -HW:] -> "
                    "layer_norm no affine eps 1e-5 -> appended; pose = compute_new_pose(poses[:, -1:], "
                    "actions[:, h:h+1]); rollout_frames = the 3 predicted frames, rollout_poses = context + 3"),
        ("cem", cem_runs),
        ("cem_energy", "mean |frame_traj[:, -1] - goal| over HW*D per sample; elites = argsort ascending [:topk]; "
                       "cem_mean/cem_std [step, rollout, 4] = (x, y, z, gripper) after each step's update "
                       "(std unbiased); cem_action = [mean xyz, 0,0,0, round_small(mean g, 0.25)]"),
        ("cem_inputs", "context = rollout_context.npy, pose = rollout_pose.npy, goal = cem_goal.npy (normalised "
                       "encoder tokens of goal_frame.npy)"),
        ("pose", "pose_next = compute_new_pose(pose_cases, pose_actions) with scipy Rotation: xyz add; "
                 "R = from_euler('xyz', action[3:6]) @ from_euler('xyz', pose[3:6]) -> as_euler('xyz'); "
                 "gripper clip(pose+action, 0, 1). Rows 3/4 near gimbal lock (pitch +-(pi/2-0.01)), rows 5-7 near "
                 "+-pi"),
        ("negative_controls", OrderedDict([
            ("no_mask_max_abs_diff", max_diff(no_mask, out)),
            ("cond_tokens_rotated_all_axes_h_w_eq_t_max_abs_diff", max_diff(cond_rot, out)),
            ("actions_states_swapped_max_abs_diff", max_diff(swapped, out)),
            ("target_encoder_instead_of_encoder_cosine",
             common.cosine_stats(frame_tokens.numpy(), decoy_tokens.numpy())),
            ("pred_abs_max", float(out.abs().max()))])),
        ("self_checks", self_checks),
        ("self_checks_note", "attention_split: a second float64 attention shaped like ACRoPEAttention (cond tokens "
                             "split out, per-segment rotate_queries_or_keys, merge per step, loop-built mask) "
                             "instead of the per-row cos/sin tables"),
        ("reference", "own float64 torch code; common.py blocks/patchify, positions.rope_tables (tiled), scipy "
                      "Rotation for poses"),
    ])
    if hp["use_extrinsics"]:
        manifest["extrinsics_in_rollout"] = (
            "the wrapper calls the predictor without extrinsics (a use_extrinsics=True predictor would fail); "
            "here rollout and CEM feed the constant rollout_extrinsics.npy [6] at every step and sample")
    manifest["files"] = {}
    common.write_json(os.path.join(out_dir, "manifest.json"), manifest)
    manifest["files"] = common.file_table(out_dir)
    common.write_json(os.path.join(out_dir, "manifest.json"), manifest)
    total = sum(manifest["files"].values()) + os.path.getsize(os.path.join(out_dir, "manifest.json"))
    print(f"{name}: {total} bytes; self_checks {dict(self_checks)}; controls {dict(manifest['negative_controls'])}; perturbed {step_diffs}")
    for prefix, run in cem_runs.items():
        print(f"  {prefix}: seed {run['noise_seed']} rel gaps "
              f"{[round(g['rel_gap'], 6) for g in run['gap_report']]} inner "
              f"{[round(g['min_consecutive_rel_gap'], 6) for g in run['gap_report']]} action {run['action']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", action="append", choices=list(CASES), help="only this case (repeatable)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    for name in args.case or list(CASES):
        generate(name)


if __name__ == "__main__":
    main()
