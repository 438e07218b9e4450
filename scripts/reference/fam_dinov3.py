"""dinov3: DINOv3 ViTs (patch 16, 4 register/"storage" tokens, 2-D RoPE, no position table) in both layouts.

- HF transformers folders (DINOv3ViTModel: config.json + model.safetensors + preprocessor_config.json):
  separate q_proj/k_proj/v_proj (k_proj without bias), layer_scale{1,2}.lambda1, GELU MLP (up_proj, down_proj)
  or the gated MLP (gate_proj, up_proj, down_proj).
- facebookresearch/dinov3 torch.hub files (torch.save of the bare state dict): fused attn.qkv whose bias is
  multiplied at run time by the buffer attn.qkv.bias_mask (key third zero), ls{1,2}.gamma, storage_tokens,
  rope_embed.periods, Mlp (fc1, fc2) or SwiGLUFFN (w1, w2, w3; the 7B's "swiglu64"), and in some files
  local_cls_norm (training-only: evaluation norms every token with `norm`).

Reference = two float64 transcriptions written apart, one per layout: `meta_forward` from dinov3
models/vision_transformer.py (prepare_tokens_with_masks, forward_features) and layers/ (RopePositionEmbedding
with normalize_coords "separate", SelfAttention.apply_rope / rope_apply on the tokens after the prefix,
LinearKMaskedBias, LayerScale, Mlp, SwiGLUFFN), and `hf_forward` from transformers
models/dinov3_vit/modeling_dinov3_vit.py (DINOv3ViTEmbeddings, DINOv3ViTRopePositionEmbedding with inv_freq,
apply_rotary_pos_emb on the patch tokens only, DINOv3ViTLayer, DINOv3ViTMLP / DINOv3ViTGatedMLP). Both run
at eval: no coordinate shift/jitter/rescale, no drop path. LayerNorm eps 1e-5 (HF layer_norm_eps; Meta's
hub builders' "layernormbf16"). Nothing here imports the engine.
"""
import math
import os
from collections import OrderedDict

import torch

import common
import swiglu
from common import F64, f64

EPS = 1e-5
PATCH = 16
N_REGISTER = 4
ROPE_BASE = 100.0
IMAGE_SIZE = 64
NATIVE_GRID = (4, 4)
WIDE_GRID = (3, 5)  # rows x columns of patches: per-axis ("separate") normalisation differs from "max"
KEY_BIAS_STD = 1.0  # the stored (masked) key third of a Meta qkv bias: large, so ignoring the mask shows
# q and k rows come from common.make_block_weights at QK_GAIN 2, scaled here to an overall gain of sqrt 2: RoPE's
# controls still fail by far, and the tiny fixtures' attention is then no more sensitive to 8-bit weights than the
# other families' (the quantizer's q8 tiers judge every fixture)
QK_SCALE = 1 / math.sqrt(2)


# ----------------------------------------------------------------------------- weights

def meta_swiglu_width(dim, ffn_ratio, align_to):
    """layers/ffn_layers.py SwiGLUFFN: d = int(hidden * 2 / 3) rounded up to a multiple of align_to, with
    hidden = int(dim * ffn_ratio) (vision_transformer.py passes mlp_hidden_dim = int(embed_dim * ffn_ratio))."""
    d = int(int(dim * ffn_ratio) * 2 / 3)
    return d + (-d % align_to)


def rope_periods(head_dim, base=ROPE_BASE):
    """RopePositionEmbedding._init_weights with base set: base ** (2 j / (hd / 2)), j < hd / 4 (float64)."""
    return base ** (2.0 * torch.arange(head_dim // 4, dtype=F64) / (head_dim // 2))


def dinov3_block(wm, dim, hidden):
    """common.make_block_weights with the q and k rows scaled by QK_SCALE."""
    block = common.make_block_weights(wm, dim, hidden)
    block["attn.qkv.weight"][:2 * dim] *= QK_SCALE
    return block


def make_meta_weights(seed, *, dim, n_head, n_layer, ffn, hidden, qkv_bias, local_cls_norm):
    """A Meta hub state dict (names, shapes, order as the module registers them).

    ffn "mlp": blocks.i.mlp.fc1/fc2 (hidden = ffn width); "swiglu": blocks.i.mlp.w1/w2 [hidden, D], w3 [D, hidden].
    qkv_bias: attn.qkv.bias (key third drawn with KEY_BIAS_STD, not zero) + attn.qkv.bias_mask (1, key third 0)."""
    wm = common.WeightMaker(seed)
    hd = dim // n_head
    w = OrderedDict()
    w["cls_token"] = wm.normal((1, 1, dim), 0.5)
    w["storage_tokens"] = wm.normal((1, N_REGISTER, dim), 0.5)
    w["mask_token"] = wm.normal((1, dim), 0.02)
    w["patch_embed.proj.weight"] = wm.normal((dim, 3, PATCH, PATCH), 1.0 / math.sqrt(3 * PATCH * PATCH))
    w["patch_embed.proj.bias"] = wm.normal((dim,), 0.02)
    w["rope_embed.periods"] = rope_periods(hd).to(torch.float32)
    for i in range(n_layer):
        s = f"blocks.{i}."
        block = dinov3_block(wm, dim, hidden)  # fc1 [hidden, D], fc2 [D, hidden]
        w[s + "norm1.weight"], w[s + "norm1.bias"] = block["norm1.weight"], block["norm1.bias"]
        w[s + "attn.qkv.weight"] = block["attn.qkv.weight"]
        if qkv_bias:
            bias = block["attn.qkv.bias"].clone()
            bias[dim:2 * dim] = wm.normal((dim,), KEY_BIAS_STD)
            mask = torch.ones(3 * dim, dtype=torch.float32)
            mask[dim:2 * dim] = 0.0
            w[s + "attn.qkv.bias"], w[s + "attn.qkv.bias_mask"] = bias, mask
        w[s + "attn.proj.weight"], w[s + "attn.proj.bias"] = block["attn.proj.weight"], block["attn.proj.bias"]
        # Trained layer scales are far from their init 1.0; O(1) and uneven keeps them visible.
        w[s + "ls1.gamma"] = wm.uniform((dim,), 0.5, 1.5)
        w[s + "norm2.weight"], w[s + "norm2.bias"] = block["norm2.weight"], block["norm2.bias"]
        if ffn == "swiglu":
            w[s + "mlp.w1.weight"], w[s + "mlp.w1.bias"] = block["mlp.fc1.weight"], block["mlp.fc1.bias"]
            w[s + "mlp.w2.weight"], w[s + "mlp.w2.bias"] = wm.linear(hidden, dim)
            w[s + "mlp.w3.weight"], w[s + "mlp.w3.bias"] = block["mlp.fc2.weight"], block["mlp.fc2.bias"]
        else:
            w[s + "mlp.fc1.weight"], w[s + "mlp.fc1.bias"] = block["mlp.fc1.weight"], block["mlp.fc1.bias"]
            w[s + "mlp.fc2.weight"], w[s + "mlp.fc2.bias"] = block["mlp.fc2.weight"], block["mlp.fc2.bias"]
        w[s + "ls2.gamma"] = wm.uniform((dim,), 0.5, 1.5)
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    if local_cls_norm:
        # Never used at evaluation; far from `norm` so that using it would show.
        w["local_cls_norm.weight"] = wm.normal((dim,), 0.5, mean=1.0)
        w["local_cls_norm.bias"] = wm.normal((dim,), 0.5)
    return w


def make_hf_weights(seed, *, dim, n_layer, gated, hidden):
    """An HF DINOv3ViTModel state dict (no prefix). q/k/v are the rows of one fused draw (q and k rows
    x QK_GAIN); k_proj has no bias (key_bias false)."""
    wm = common.WeightMaker(seed)
    w = OrderedDict()
    w["embeddings.cls_token"] = wm.normal((1, 1, dim), 0.5)
    w["embeddings.mask_token"] = wm.normal((1, 1, dim), 0.02)
    w["embeddings.register_tokens"] = wm.normal((1, N_REGISTER, dim), 0.5)
    w["embeddings.patch_embeddings.weight"] = wm.normal((dim, 3, PATCH, PATCH), 1.0 / math.sqrt(3 * PATCH * PATCH))
    w["embeddings.patch_embeddings.bias"] = wm.normal((dim,), 0.02)
    for i in range(n_layer):
        s = f"layer.{i}."
        block = dinov3_block(wm, dim, hidden)
        qkv_w, qkv_b = block["attn.qkv.weight"], block["attn.qkv.bias"]
        w[s + "norm1.weight"], w[s + "norm1.bias"] = block["norm1.weight"], block["norm1.bias"]
        w[s + "attention.q_proj.weight"], w[s + "attention.q_proj.bias"] = qkv_w[:dim].clone(), qkv_b[:dim].clone()
        w[s + "attention.k_proj.weight"] = qkv_w[dim:2 * dim].clone()
        w[s + "attention.v_proj.weight"], w[s + "attention.v_proj.bias"] = (qkv_w[2 * dim:].clone(),
                                                                            qkv_b[2 * dim:].clone())
        w[s + "attention.o_proj.weight"], w[s + "attention.o_proj.bias"] = (block["attn.proj.weight"],
                                                                            block["attn.proj.bias"])
        w[s + "layer_scale1.lambda1"] = wm.uniform((dim,), 0.5, 1.5)
        w[s + "norm2.weight"], w[s + "norm2.bias"] = block["norm2.weight"], block["norm2.bias"]
        if gated:
            w[s + "mlp.gate_proj.weight"], w[s + "mlp.gate_proj.bias"] = block["mlp.fc1.weight"], block["mlp.fc1.bias"]
            w[s + "mlp.up_proj.weight"], w[s + "mlp.up_proj.bias"] = wm.linear(hidden, dim)
        else:
            w[s + "mlp.up_proj.weight"], w[s + "mlp.up_proj.bias"] = block["mlp.fc1.weight"], block["mlp.fc1.bias"]
        w[s + "mlp.down_proj.weight"], w[s + "mlp.down_proj.bias"] = block["mlp.fc2.weight"], block["mlp.fc2.bias"]
        w[s + "layer_scale2.lambda1"] = wm.uniform((dim,), 0.5, 1.5)
    w["norm.weight"], w["norm.bias"] = wm.layer_norm(dim)
    return w


# ----------------------------------------------------------------------------- Meta transcription

def meta_rope(periods, rows, cols, normalize="separate"):
    """RopePositionEmbedding.forward(H=rows, W=cols) at eval -> (sin, cos) [HW, hd], float64."""
    if normalize == "separate":
        coords_h = torch.arange(0.5, rows, dtype=F64) / rows
        coords_w = torch.arange(0.5, cols, dtype=F64) / cols
    elif normalize == "max":
        coords_h = torch.arange(0.5, rows, dtype=F64) / max(rows, cols)
        coords_w = torch.arange(0.5, cols, dtype=F64) / max(rows, cols)
    else:
        raise ValueError(normalize)
    coords = torch.stack(torch.meshgrid(coords_h, coords_w, indexing="ij"), dim=-1).flatten(0, 1)  # [HW, 2]
    coords = 2.0 * coords - 1.0
    angles = 2 * math.pi * coords[:, :, None] / periods[None, None, :]  # [HW, 2, hd/4]
    angles = angles.flatten(1, 2).tile(2)  # [HW, hd]
    return torch.sin(angles), torch.cos(angles)


def meta_rope_rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


def meta_rope_apply(x, sin, cos):
    return x * cos + meta_rope_rotate_half(x) * sin


def meta_attention(x, p, n_head, rope, *, rope_prefix, use_bias_mask):
    """SelfAttention.forward: qkv (bias * bias_mask) -> [3, H, N, hd]; apply_rope on q, k[:, prefix:]
    (prefix = N - HW); scaled_dot_product_attention; proj."""
    n_tok, dim = x.shape
    hd = dim // n_head
    bias = p.get("attn.qkv.bias")
    if bias is not None:
        bias = f64(bias) * (f64(p["attn.qkv.bias_mask"]) if use_bias_mask else 1.0)
        qkv = x @ f64(p["attn.qkv.weight"]).T + bias
    else:
        qkv = x @ f64(p["attn.qkv.weight"]).T
    qkv = qkv.reshape(n_tok, 3, n_head, hd)
    q, k, v = [t.transpose(0, 1) for t in torch.unbind(qkv, 1)]  # [H, N, hd]
    sin, cos = rope
    prefix = n_tok - sin.shape[-2]
    if rope_prefix:  # negative control: the prefix rows take the angles of patch (0, 0)
        sin = torch.cat([sin[:1].expand(prefix, -1), sin], 0)
        cos = torch.cat([cos[:1].expand(prefix, -1), cos], 0)
        prefix = 0
    q = torch.cat([q[:, :prefix], meta_rope_apply(q[:, prefix:], sin, cos)], dim=1)
    k = torch.cat([k[:, :prefix], meta_rope_apply(k[:, prefix:], sin, cos)], dim=1)
    attn = torch.softmax((q * hd ** -0.5) @ k.transpose(-1, -2), dim=-1)
    out = (attn @ v).transpose(0, 1).reshape(n_tok, dim)
    return common.linear(out, p["attn.proj.weight"], p["attn.proj.bias"])


def meta_ffn(h, p):
    if "mlp.w1.weight" in p:  # SwiGLUFFN: w3(silu(w1 x) * w2 x)
        x1 = common.linear(h, p["mlp.w1.weight"], p["mlp.w1.bias"])
        x2 = common.linear(h, p["mlp.w2.weight"], p["mlp.w2.bias"])
        return common.linear(swiglu.silu(x1) * x2, p["mlp.w3.weight"], p["mlp.w3.bias"])
    return common.linear(common.gelu_erf(common.linear(h, p["mlp.fc1.weight"], p["mlp.fc1.bias"])),
                         p["mlp.fc2.weight"], p["mlp.fc2.bias"])


@torch.no_grad()
def meta_forward(weights, pixels, n_head, n_layer, *, normalize="separate", rope_prefix=False, use_bias_mask=True,
                 local_cls_norm=False):
    """forward_features at eval as one [1, 1 + R + HW, D] tensor (x_norm_clstoken, x_storage_tokens,
    x_norm_patchtokens). local_cls_norm=True is the negative control (prefix rows normed with local_cls_norm)."""
    rows, cols = pixels.shape[-2] // PATCH, pixels.shape[-1] // PATCH
    x = torch.nn.functional.conv2d(f64(pixels), f64(weights["patch_embed.proj.weight"]),
                                   f64(weights["patch_embed.proj.bias"]), stride=PATCH)  # [1, D, H, W]
    x = x.permute(0, 2, 3, 1).flatten(1, 2)[0]  # PatchEmbed (flatten_embedding False) then flatten(1, 2)
    cls = f64(weights["cls_token"])[0] + 0 * f64(weights["mask_token"])
    x = torch.cat([cls, f64(weights["storage_tokens"])[0], x], dim=0)
    # The module reads its persistent `periods` buffer; the file holds base ** (2j / (hd/2)) in float32, and the
    # reference uses those periods recomputed in float64 (asserted equal to the stored ones after rounding).
    periods = rope_periods(x.shape[-1] // n_head)
    assert torch.equal(periods.to(torch.float32), weights["rope_embed.periods"])
    rope = meta_rope(periods, rows, cols, normalize)
    for i in range(n_layer):
        p = common.block_params(weights, f"blocks.{i}.")
        x = x + f64(p["ls1.gamma"]) * meta_attention(common.layer_norm(x, p["norm1.weight"], p["norm1.bias"], EPS),
                                                     p, n_head, rope, rope_prefix=rope_prefix,
                                                     use_bias_mask=use_bias_mask)
        x = x + f64(p["ls2.gamma"]) * meta_ffn(common.layer_norm(x, p["norm2.weight"], p["norm2.bias"], EPS), p)
    n_prefix = 1 + N_REGISTER
    prefix_norm = "local_cls_norm" if local_cls_norm else "norm"
    x_prefix = common.layer_norm(x[:n_prefix], weights[prefix_norm + ".weight"], weights[prefix_norm + ".bias"], EPS)
    x_patch = common.layer_norm(x[n_prefix:], weights["norm.weight"], weights["norm.bias"], EPS)
    return torch.cat([x_prefix, x_patch], dim=0)[None]


# ----------------------------------------------------------------------------- HF transcription

def hf_rope(head_dim, rows, cols, base, normalize="separate"):
    """DINOv3ViTRopePositionEmbedding.forward at eval -> (cos, sin) [HW, hd], float64."""
    inv_freq = 1.0 / base ** (torch.arange(head_dim // 4, dtype=F64) * (4.0 / head_dim))
    if normalize == "separate":  # get_patches_center_coordinates
        ch = (torch.arange(rows, dtype=F64) + 0.5) / rows
        cw = (torch.arange(cols, dtype=F64) + 0.5) / cols
    else:
        ch = (torch.arange(rows, dtype=F64) + 0.5) / max(rows, cols)
        cw = (torch.arange(cols, dtype=F64) + 0.5) / max(rows, cols)
    gh, gw = torch.meshgrid(ch, cw, indexing="ij")
    coords = torch.stack([gh, gw], dim=-1).reshape(rows * cols, 2) * 2.0 - 1.0
    angles = (2 * math.pi * coords[:, :, None] * inv_freq[None, None, :]).flatten(1, 2)
    angles = torch.cat([angles, angles], dim=-1)
    return torch.cos(angles), torch.sin(angles)


def hf_rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def hf_apply_rotary(q, k, cos, sin, rope_prefix=False):
    """apply_rotary_pos_emb: the first N - HW tokens (CLS, registers) are left as they are."""
    n_prefix = q.shape[-2] - sin.shape[-2]
    if rope_prefix:
        cos = torch.cat([cos[:1].repeat(n_prefix, 1), cos], 0)
        sin = torch.cat([sin[:1].repeat(n_prefix, 1), sin], 0)
        n_prefix = 0
    out = []
    for t in (q, k):
        pre, pat = t[..., :n_prefix, :], t[..., n_prefix:, :]
        out.append(torch.cat((pre, pat * cos + hf_rotate_half(pat) * sin), dim=-2))
    return out


def _maybe_linear(x, w, name):
    y = x @ f64(w[name + ".weight"]).T
    return y + f64(w[name + ".bias"]) if name + ".bias" in w else y


def hf_attention(x, p, n_head, cos, sin, rope_prefix):
    n_tok, dim = x.shape
    hd = dim // n_head
    q, k, v = [_maybe_linear(x, p, f"attention.{n}_proj").view(n_tok, n_head, hd).transpose(0, 1)
               for n in ("q", "k", "v")]
    q, k = hf_apply_rotary(q, k, cos, sin, rope_prefix)
    weights = torch.softmax((q @ k.transpose(-1, -2)) * hd ** -0.5, dim=-1)
    out = (weights @ v).transpose(0, 1).reshape(n_tok, dim)
    return _maybe_linear(out, p, "attention.o_proj")


def hf_mlp(h, p, act):
    if "mlp.gate_proj.weight" in p:  # DINOv3ViTGatedMLP
        return _maybe_linear(act(_maybe_linear(h, p, "mlp.gate_proj")) * _maybe_linear(h, p, "mlp.up_proj"), p,
                             "mlp.down_proj")
    return _maybe_linear(act(_maybe_linear(h, p, "mlp.up_proj")), p, "mlp.down_proj")


@torch.no_grad()
def hf_forward(weights, pixels, config, *, normalize="separate", rope_prefix=False):
    """DINOv3ViTModel.forward: last_hidden_state [1, 1 + R + HW, D] (pooler_output = its row 0)."""
    dim, n_head = config["hidden_size"], config["num_attention_heads"]
    act = {"gelu": common.gelu_erf, "silu": swiglu.silu}[config["hidden_act"]]
    eps = config["layer_norm_eps"]
    patch = config["patch_size"]
    rows, cols = pixels.shape[-2] // patch, pixels.shape[-1] // patch
    emb = torch.nn.functional.conv2d(f64(pixels), f64(weights["embeddings.patch_embeddings.weight"]),
                                     f64(weights["embeddings.patch_embeddings.bias"]), stride=patch)
    emb = emb.flatten(2).transpose(1, 2)[0]
    h = torch.cat([f64(weights["embeddings.cls_token"])[0], f64(weights["embeddings.register_tokens"])[0], emb], 0)
    cos, sin = hf_rope(dim // n_head, rows, cols, config["rope_theta"], normalize)
    for i in range(config["num_hidden_layers"]):
        p = common.block_params(weights, f"layer.{i}.")
        res = h
        h = hf_attention(common.layer_norm(h, p["norm1.weight"], p["norm1.bias"], eps), p, n_head, cos, sin,
                         rope_prefix)
        h = h * f64(p["layer_scale1.lambda1"]) + res
        res = h
        h = hf_mlp(common.layer_norm(h, p["norm2.weight"], p["norm2.bias"], eps), p, act)
        h = h * f64(p["layer_scale2.lambda1"]) + res
    return common.layer_norm(h, weights["norm.weight"], weights["norm.bias"], eps)[None]


# ----------------------------------------------------------------------------- files

def hf_config(*, dim, n_head, n_layer, hidden, gated):
    return {"architectures": ["DINOv3ViTModel"], "model_type": "dinov3_vit", "hidden_size": dim,
            "intermediate_size": hidden, "num_hidden_layers": n_layer, "num_attention_heads": n_head,
            "hidden_act": "silu" if gated else "gelu", "layer_norm_eps": EPS, "rope_theta": ROPE_BASE,
            "image_size": IMAGE_SIZE, "patch_size": PATCH, "num_channels": 3, "query_bias": True, "key_bias": False,
            "value_bias": True, "proj_bias": True, "mlp_bias": True, "layerscale_value": 1.0,
            "use_gated_mlp": gated, "num_register_tokens": N_REGISTER, "pos_embed_shift": None,
            "pos_embed_jitter": None, "pos_embed_rescale": 2.0, "drop_path_rate": 0.0, "attention_dropout": 0.0,
            "initializer_range": 0.02, "torch_dtype": "float32"}


def preprocessor_config():
    return {"image_processor_type": "DINOv3ViTImageProcessorFast", "do_resize": True,
            "size": {"height": IMAGE_SIZE, "width": IMAGE_SIZE}, "resample": 2, "do_rescale": True,
            "rescale_factor": 0.00392156862745098, "do_normalize": True, "image_mean": common.IMAGENET_MEAN,
            "image_std": common.IMAGENET_STD, "do_center_crop": None, "crop_size": None, "default_to_square": True,
            "data_format": "channels_first"}


def _cases_and_controls(out_dir, seed, dim, forward, controls_spec):
    """Writes the native and wide cases; controls_spec: [(file suffix, description, kwargs for forward)] run on
    the wide case."""
    cases, controls = {}, {}
    for case, tag, (rows, cols) in (("native", "", NATIVE_GRID), ("wide", "_wide", WIDE_GRID)):
        pixels = torch.from_numpy(common.make_input(seed + 100 + rows * 10 + cols, (1, 3, rows * PATCH, cols * PATCH)))
        hidden = forward(pixels)
        common.save_npy(os.path.join(out_dir, f"input{tag}.npy"), pixels.numpy())
        common.save_f32(os.path.join(out_dir, f"last_hidden_state{tag}.npy"), hidden)
        common.save_f32(os.path.join(out_dir, f"pooled{tag}.npy"), hidden[:, 0])
        cases[case] = {"input": f"input{tag}.npy", "input_shape": list(pixels.shape),
                       "last_hidden_state": f"last_hidden_state{tag}.npy",
                       "last_hidden_state_shape": list(hidden.shape), "pooled": f"pooled{tag}.npy",
                       "pooled_shape": [1, dim], "patch_grid": [rows, cols]}
        if case != "wide":
            continue
        for suffix, text, kwargs in controls_spec:
            other = forward(pixels, **kwargs)
            fname = f"last_hidden_state_wide_{suffix}.npy"
            common.save_f32(os.path.join(out_dir, fname), other)
            controls[fname] = text
            controls[f"{suffix}_cosine"] = common.cosine_stats(hidden.numpy(), other.numpy())
            controls[f"{suffix}_max_abs"] = common.max_abs_diff(hidden.numpy(), other.numpy())
    return cases, controls


ROPE_CONTROLS = [
    ("rope_prefix", "wide case with RoPE applied to the 5 prefix tokens too (CLS and registers given the angles "
                    "of patch (0, 0)); the real models rotate the patch tokens only", {"rope_prefix": True}),
    ("max_coords", "wide case with normalize_coords \"max\" (both axes divided by max(H, W) = 5 before 2c - 1) "
                   "instead of DINOv3's \"separate\" (each axis by its own length)", {"normalize": "max"}),
]


def _manifest(*, variant, source_layout, checkpoint, hp, cases, controls, reference, extra=None):
    m = {
        "family": "dinov3",
        "variant": variant,
        "source_layout": source_layout,
        "checkpoint": checkpoint,
        "hparams": hp,
    }
    m.update(extra or {})
    m.update({
        "input_layout": "NCHW float32, already preprocessed (ImageNet mean/std applied)",
        "token_order": ["CLS"] + ["register"] * N_REGISTER + ["patches row-major (h, then w)"],
        "input": cases["native"]["input"], "input_shape": cases["native"]["input_shape"],
        "last_hidden_state": cases["native"]["last_hidden_state"],
        "last_hidden_state_shape": cases["native"]["last_hidden_state_shape"],
        "pooled": cases["native"]["pooled"], "pooled_shape": cases["native"]["pooled_shape"],
        "cases": cases,
        "pooling": "CLS row of last_hidden_state (HF pooler_output; Meta x_norm_clstoken)",
        "reference": reference,
        "negative_controls": controls,
    })
    return m


ROPE_TEXT = ("2-D RoPE on q and k of the patch tokens only (the 5 prefix tokens unrotated), after the projection "
             "bias: coords = 2 * ((arange(H) + 0.5) / H, (arange(W) + 0.5) / W) - 1 (meshgrid ij, (y, x)), "
             "periods = 100 ** (2 j / (hd / 2)), j < hd / 4; angles = 2 pi coords / periods -> [HW, 2, hd/4] "
             "flattened (all y frequencies, then all x) and tiled twice -> [HW, hd]; x cos + rotate_half(x) sin, "
             "rotate_half(x) = cat(-x[hd/2:], x[:hd/2]); computed in float64")


def _hparams(*, dim, n_head, n_layer, hidden, ffn, **extra):
    hp = {"embed_dim": dim, "n_layer": n_layer, "n_head": n_head, "head_dim": dim // n_head, "ffn_dim": hidden,
          "ffn": ffn}
    hp.update(extra)
    hp.update({"n_register": N_REGISTER, "patch": PATCH, "eps": EPS, "rope_base": ROPE_BASE,
               "rope_normalize_coords": "separate", "layer_scale": True, "image_size": IMAGE_SIZE})
    return hp


def generate_hf(name, *, seed, dim, n_head, n_layer, hidden, gated):
    out_dir = common.family_dir(name)
    config = hf_config(dim=dim, n_head=n_head, n_layer=n_layer, hidden=hidden, gated=gated)
    weights = make_hf_weights(seed, dim=dim, n_layer=n_layer, gated=gated, hidden=hidden)
    common.write_safetensors(os.path.join(out_dir, "model.safetensors"), weights)
    common.write_json(os.path.join(out_dir, "config.json"), config)
    common.write_json(os.path.join(out_dir, "preprocessor_config.json"), preprocessor_config())

    cases, controls = _cases_and_controls(out_dir, seed, dim, lambda px, **kw: hf_forward(weights, px, config, **kw),
                                          ROPE_CONTROLS)
    hp = _hparams(dim=dim, n_head=n_head, n_layer=n_layer, hidden=hidden,
                  ffn="gated (down_proj(silu(gate_proj x) * up_proj x))" if gated else "mlp (up_proj, exact GELU, "
                                                                                      "down_proj)",
                  qkv_bias={"query": True, "key": False, "value": True})
    return _manifest(
        variant="HF DINOv3ViTModel" + (" gated MLP" if gated else ""),
        source_layout="HF transformers folder (DINOv3ViTModel): config.json + model.safetensors (F32, no prefix) + "
                      "preprocessor_config.json; attention.{q,k,v,o}_proj (k_proj without bias), "
                      "layer_scale{1,2}.lambda1, embeddings.register_tokens",
        checkpoint=["config.json", "model.safetensors", "preprocessor_config.json"],
        hp=hp, cases=cases, controls=controls,
        extra={"block": "pre-LN: x + lambda1 * o_proj(attn(norm1 x)); x + lambda2 * mlp(norm2 x); "
                        + ("DINOv3ViTGatedMLP: down_proj(silu(gate_proj x) * up_proj x), intermediate_size "
                           f"{hidden}" if gated else f"DINOv3ViTMLP: down_proj(gelu(up_proj x)), exact GELU, "
                                                     f"intermediate_size {hidden}"),
               "unused_tensors": ["embeddings.mask_token"]},
        reference="float64 transcription of transformers models/dinov3_vit/modeling_dinov3_vit.py "
                  "(DINOv3ViTModel.forward at eval): [CLS, 4 registers, patches], no position table; " + ROPE_TEXT
                  + "; final norm over every token, pooler_output = its CLS row")


def generate_meta(name, *, seed, dim, n_head, n_layer, ffn, ffn_ratio, align_to, qkv_bias, local_cls_norm, pth):
    out_dir = common.family_dir(name)
    hidden = meta_swiglu_width(dim, ffn_ratio, align_to) if ffn == "swiglu" else int(dim * ffn_ratio)
    weights = make_meta_weights(seed, dim=dim, n_head=n_head, n_layer=n_layer, ffn=ffn, hidden=hidden,
                                qkv_bias=qkv_bias, local_cls_norm=local_cls_norm)
    common.torch_save_deterministic(weights, os.path.join(out_dir, pth))

    spec = list(ROPE_CONTROLS)
    if qkv_bias:
        spec.append(("unmasked_k_bias", "wide case with attn.qkv.bias used as stored (bias_mask ignored: the key "
                                        f"third, std {KEY_BIAS_STD}, added to k); RoPE rotates that bias per "
                                        "patch, so unlike a plain key bias softmax does not cancel it",
                     {"use_bias_mask": False}))
    if local_cls_norm:
        spec.append(("local_cls_norm", "wide case with CLS and the 4 registers normed by local_cls_norm instead "
                                       "of norm (a training-only path for local crops; evaluation uses norm)",
                     {"local_cls_norm": True}))
    cases, controls = _cases_and_controls(out_dir, seed, dim,
                                          lambda px, **kw: meta_forward(weights, px, n_head, n_layer, **kw), spec)
    if ffn == "swiglu":
        ffn_text = (f"swiglu{align_to} (SwiGLUFFN: w3(silu(w1 x) * w2 x), h = int(int(D * ffn_ratio) * 2 / 3) "
                    f"rounded up to a multiple of {align_to} = int({int(dim * ffn_ratio)} * 2 / 3) = "
                    f"{int(int(dim * ffn_ratio) * 2 / 3)} -> {hidden})")
    else:
        ffn_text = "mlp (fc1, exact GELU, fc2)"
    hp = _hparams(dim=dim, n_head=n_head, n_layer=n_layer, hidden=hidden, ffn=ffn_text, ffn_ratio=ffn_ratio,
                  **({"align_to": align_to} if ffn == "swiglu" else {}),
                  qkv_bias=qkv_bias, qkv_bias_mask=qkv_bias)
    unused = ["mask_token", "rope_embed.periods (equal, in float32, to the periods recomputed from rope_base)"]
    if local_cls_norm:
        unused.extend(["local_cls_norm.weight", "local_cls_norm.bias"])
    return _manifest(
        variant="dinov3 torch.hub" + (" SwiGLU (as the 7B: swiglu64, no qkv bias)" if ffn == "swiglu" else "")
                + (" with local_cls_norm" if local_cls_norm else ""),
        source_layout="facebookresearch/dinov3 torch.hub file: torch.save of the bare state dict (torch zip pickle), "
                      "the repository's own names (cls_token, storage_tokens, blocks.N.attn.qkv"
                      + (" + bias_mask" if qkv_bias else " without bias") + ", blocks.N.ls1.gamma, rope_embed.periods"
                      + (", mlp.w1/w2/w3" if ffn == "swiglu" else ", mlp.fc1/fc2") + ")",
        checkpoint=[pth], hp=hp, cases=cases, controls=controls,
        extra={"block": "pre-LN: x + ls1 * attn(norm1 x); x + ls2 * ffn(norm2 x); "
                        + ("qkv bias multiplied by bias_mask (1 for q and v, 0 for k) at run time; the stored key "
                           f"third is non-zero (std {KEY_BIAS_STD})" if qkv_bias else "qkv without bias"),
               "unused_tensors": unused},
        reference="float64 transcription of dinov3 models/vision_transformer.py forward_features at eval "
                  "(x_norm_clstoken, x_storage_tokens, x_norm_patchtokens as one tensor): [CLS, 4 storage tokens, "
                  "patches], no position table; " + ROPE_TEXT + "; final norm over every token"
                  + ("; local_cls_norm not used (training-only, local crops)" if local_cls_norm else ""))
