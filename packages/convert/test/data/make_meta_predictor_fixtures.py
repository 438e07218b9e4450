"""Tiny Meta V-JEPA 2 / 2.1 .pt files with a `predictor` entry (the reference fixtures are encoder-only).

Run with Debian's interpreter:  /usr/bin/python3 packages/convert/test/data/make_meta_predictor_fixtures.py
Seeded; names follow facebookresearch/vjepa2 (families.md §3.2, §4.2-4.5), values are random.
"""
import os
import torch

torch.manual_seed(0)
HERE = os.path.dirname(os.path.abspath(__file__))
D, F, P, DP, FP = 32, 32, 4, 16, 32


def rnd(*shape):
    return torch.randn(*shape) * 0.1


def block(prefix, d, f, out):
    out[f"{prefix}.norm1.weight"] = 1 + rnd(d)
    out[f"{prefix}.norm1.bias"] = rnd(d)
    out[f"{prefix}.attn.qkv.weight"] = rnd(3 * d, d)
    out[f"{prefix}.attn.qkv.bias"] = rnd(3 * d)
    out[f"{prefix}.attn.proj.weight"] = rnd(d, d)
    out[f"{prefix}.attn.proj.bias"] = rnd(d)
    out[f"{prefix}.norm2.weight"] = 1 + rnd(d)
    out[f"{prefix}.norm2.bias"] = rnd(d)
    out[f"{prefix}.mlp.fc1.weight"] = rnd(f, d)
    out[f"{prefix}.mlp.fc1.bias"] = rnd(f)
    out[f"{prefix}.mlp.fc2.weight"] = rnd(d, f)
    out[f"{prefix}.mlp.fc2.bias"] = rnd(d)


def encoder(v21):
    e = {"patch_embed.proj.weight": rnd(D, 3, 2, P, P), "patch_embed.proj.bias": rnd(D)}
    block("blocks.0", D, F, e)
    if v21:
        e["patch_embed_img.proj.weight"] = rnd(D, 3, 1, P, P)
        e["patch_embed_img.proj.bias"] = rnd(D)
        e["img_mod_embed"] = rnd(1, 1, D)
        e["video_mod_embed"] = rnd(1, 1, D)
        for k in range(4):
            e[f"norms_block.{k}.weight"] = 1 + rnd(D)
            e[f"norms_block.{k}.bias"] = rnd(D)
    else:
        e["pos_embed"] = rnd(1, 8, D)
        e["norm.weight"] = 1 + rnd(D)
        e["norm.bias"] = rnd(D)
    return {f"module.backbone.{k}": v for k, v in e.items()}


def predictor(v21):
    p = {"predictor_embed.weight": rnd(DP, D), "predictor_embed.bias": rnd(DP)}
    for k in range(3):
        p[f"mask_tokens.{k}"] = rnd(1, 1, DP)
    block("predictor_blocks.0", DP, FP, p)
    p["predictor_norm.weight"] = 1 + rnd(DP)
    p["predictor_norm.bias"] = rnd(DP)
    out_dim = 2 * D if v21 else D
    p["predictor_proj.weight"] = rnd(out_dim, DP)
    p["predictor_proj.bias"] = rnd(out_dim)
    if v21:
        p["img_mod_embed"] = rnd(1, 1, DP)
        p["video_mod_embed"] = rnd(1, 1, DP)
        p["predictor_proj_context.weight"] = rnd(out_dim, DP)
        p["predictor_proj_context.bias"] = rnd(out_dim)
    else:
        p["predictor_pos_embed"] = rnd(1, 8, DP)
    return {f"module.backbone.{k}": v for k, v in p.items()}


torch.save({"target_encoder": encoder(False), "encoder": encoder(False), "predictor": predictor(False), "epoch": 1},
           os.path.join(HERE, "meta-vjepa2-predictor.pt"))
torch.save({"ema_encoder": encoder(True), "encoder": encoder(True), "predictor": predictor(True), "epoch": 1},
           os.path.join(HERE, "meta-vjepa2_1-predictor.pt"))


# V-JEPA 2-AC (src/hub/backbones.py _make_vjepa2_ac_model): `encoder` (the entry Meta's AC loader
# reads) and a differently valued `target_encoder`, plus a VisionTransformerPredictorAC.
A = 7


def ac_predictor(drop=(), extra=None):
    p = {"predictor_embed.weight": rnd(DP, D), "predictor_embed.bias": rnd(DP),
         "action_encoder.weight": rnd(DP, A), "action_encoder.bias": rnd(DP),
         "state_encoder.weight": rnd(DP, A), "state_encoder.bias": rnd(DP),
         "extrinsics_encoder.weight": rnd(DP, A - 1), "extrinsics_encoder.bias": rnd(DP)}
    block("predictor_blocks.0", DP, FP, p)
    block("predictor_blocks.1", DP, FP, p)
    p["predictor_norm.weight"] = 1 + rnd(DP)
    p["predictor_norm.bias"] = rnd(DP)
    p["predictor_proj.weight"] = rnd(D, DP)
    p["predictor_proj.bias"] = rnd(D)
    for name in drop:
        del p[name]
    if extra is not None:
        p[extra] = rnd(DP)
    return {f"module.backbone.{k}": v for k, v in p.items()}


def ac_file(name, pred):
    torch.save({"encoder": encoder(False), "target_encoder": encoder(False), "predictor": pred,
                "opt": {"lr": 0.1}, "epoch": 3}, os.path.join(HERE, name))


ac_file("meta-vjepa2-ac.pt", ac_predictor())
ac_file("meta-vjepa2-ac-no-state.pt", ac_predictor(drop=("state_encoder.weight",)))
ac_file("meta-vjepa2-ac-extra.pt", ac_predictor(extra="action_gate.weight"))
# The old crash: a masked-layout predictor (mask tokens) without its predictor_embed.
masked = predictor(False)
del masked["module.backbone.predictor_embed.weight"]
del masked["module.backbone.predictor_embed.bias"]
torch.save({"target_encoder": encoder(False), "predictor": masked, "epoch": 1},
           os.path.join(HERE, "meta-vjepa2-predictor-no-embed.pt"))
