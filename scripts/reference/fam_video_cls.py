"""videomae, vivit: the two Kinetics-400 video classifiers, in their HF folder layouts
(VideoMAEForVideoClassification, VivitForVideoClassification), with their processors.

Written from transformers' modeling_videomae.py / modeling_vivit.py and the VideoMAE / ViViT image
processors: own float64 code, HF module by HF module (separate query/key/value, HF names), not the fused
block of common.py.
- VideoMAE: Conv3d tubelets + get_sinusoid_encoding_table (1-D over all patches: channel j at angle
  p / 10000^(2*(j//2)/D), sin on even j, cos on odd j); q_bias and v_bias, k without bias; layer_norm_eps
  from the config (1e-12); use_mean_pooling: no final norm, mean of the tokens -> fc_norm (nn.LayerNorm at
  its default eps 1e-5) -> classifier.
- ViViT: Conv3d tubelets, CLS + learned table of N + 1 rows, gelu_fast (tanh GELU), eps 1e-6, final
  LayerNorm, classifier on the CLS.
- Processors (slow image processors, frame by frame): Pillow bilinear resize of the shortest edge
  (long side int(size * long / short), reducing_gap=None), centre crop with a floored margin, rescale in
  float64 then float32; ViViT then subtracts 1 (offset) and normalises again with mean = std = 0.5.
"""
import math
import os
from collections import OrderedDict

import numpy as np
import torch
from PIL import Image

import common
from common import f64
from positions import sincos_3d_vjepa

KINETICS_FIRST5 = ["abseiling", "air drumming", "answering questions", "applauding", "applying cream"]
N_CLASSES = len(KINETICS_FIRST5)


# ----------------------------------------------------------------------------- weights (HF names)

def hf_layer_weights(wm, prefix, dim, ffn_dim, key_bias, qv_bias_names):
    w = OrderedDict()
    att = f"{prefix}.attention.attention"
    for name, gain in (("query", common.QK_GAIN), ("key", common.QK_GAIN), ("value", 1.0)):
        w[f"{att}.{name}.weight"] = wm.linear(dim, dim)[0] * gain
        if not qv_bias_names and (name != "key" or key_bias):
            w[f"{att}.{name}.bias"] = wm.normal((dim,), 0.3)  # large enough for the bias controls to show
    if qv_bias_names:
        w[f"{att}.q_bias"] = wm.normal((dim,), 0.3)
        w[f"{att}.v_bias"] = wm.normal((dim,), 0.3)
    w[f"{prefix}.attention.output.dense.weight"], w[f"{prefix}.attention.output.dense.bias"] = wm.linear(dim, dim)
    w[f"{prefix}.intermediate.dense.weight"], w[f"{prefix}.intermediate.dense.bias"] = wm.linear(ffn_dim, dim)
    w[f"{prefix}.output.dense.weight"], w[f"{prefix}.output.dense.bias"] = wm.linear(dim, ffn_dim)
    w[f"{prefix}.layernorm_before.weight"], w[f"{prefix}.layernorm_before.bias"] = wm.layer_norm(dim)
    w[f"{prefix}.layernorm_after.weight"], w[f"{prefix}.layernorm_after.bias"] = wm.layer_norm(dim)
    return w


def gelu_fast(x):
    """transformers FastGELUActivation."""
    return 0.5 * x * (1.0 + torch.tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x)))


# ----------------------------------------------------------------------------- float64 forward

def hf_linear(x, w, name, bias=True):
    y = x @ f64(w[f"{name}.weight"]).T
    return y + f64(w[f"{name}.bias"]) if bias else y


def hf_layer(x, w, prefix, hp, act, drop_key_bias=False):
    """VideoMAELayer / VivitLayer: x += out(attn(LN_before x)); x += output(act(intermediate(LN_after x)))."""
    n, dim = x.shape
    heads, hd = hp["n_head"], dim // hp["n_head"]
    att = f"{prefix}.attention.attention"
    h = common.layer_norm(x, w[f"{prefix}.layernorm_before.weight"], w[f"{prefix}.layernorm_before.bias"], hp["eps"])
    if f"{att}.q_bias" in w:  # VideoMAE: k_bias = zeros_like(v_bias)
        q = h @ f64(w[f"{att}.query.weight"]).T + f64(w[f"{att}.q_bias"])
        k = h @ f64(w[f"{att}.key.weight"]).T
        v = h @ f64(w[f"{att}.value.weight"]).T + f64(w[f"{att}.v_bias"])
    else:
        q = hf_linear(h, w, f"{att}.query")
        k = hf_linear(h, w, f"{att}.key", bias=not drop_key_bias)
        v = hf_linear(h, w, f"{att}.value")
    split = lambda t: t.reshape(n, heads, hd).permute(1, 0, 2)  # noqa: E731
    probs = torch.softmax((split(q) @ split(k).transpose(-1, -2)) * hd ** -0.5, dim=-1)
    ctx = (probs @ split(v)).permute(1, 0, 2).reshape(n, dim)
    x = x + hf_linear(ctx, w, f"{prefix}.attention.output.dense")
    h = common.layer_norm(x, w[f"{prefix}.layernorm_after.weight"], w[f"{prefix}.layernorm_after.bias"], hp["eps"])
    return x + hf_linear(act(hf_linear(h, w, f"{prefix}.intermediate.dense")), w, f"{prefix}.output.dense")


def sinusoid_table(n_position, dim):
    """modeling_videomae.get_sinusoid_encoding_table, in float64 (HF stores it as float32)."""
    j = np.arange(dim)
    angles = np.arange(n_position, dtype=np.float64)[:, None] / np.power(10000, 2 * (j // 2) / dim)[None, :]
    table = angles.copy()
    table[:, 0::2] = np.sin(angles[:, 0::2])
    table[:, 1::2] = np.cos(angles[:, 1::2])
    return torch.from_numpy(table)


def videomae_forward(w, clip, hp, table, fc_norm_eps):
    x = common.patch_embed_3d(clip, w["videomae.embeddings.patch_embeddings.projection.weight"],
                              w["videomae.embeddings.patch_embeddings.projection.bias"]) + table
    for i in range(hp["n_layer"]):
        x = hf_layer(x, w, f"videomae.encoder.layer.{i}", hp, common.gelu_erf)
    mean = x.mean(0)
    logits = hf_linear(common.layer_norm(mean, w["fc_norm.weight"], w["fc_norm.bias"], fc_norm_eps), w, "classifier")
    return x, mean, logits


def vivit_forward(w, clip, hp, drop_key_bias=False):
    tokens = common.patch_embed_3d(clip, w["vivit.embeddings.patch_embeddings.projection.weight"],
                                   w["vivit.embeddings.patch_embeddings.projection.bias"])
    x = torch.cat([f64(w["vivit.embeddings.cls_token"])[0], tokens], dim=0) + f64(w["vivit.embeddings.position_embeddings"])[0]
    for i in range(hp["n_layer"]):
        x = hf_layer(x, w, f"vivit.encoder.layer.{i}", hp, gelu_fast, drop_key_bias)
    x = common.layer_norm(x, w["vivit.layernorm.weight"], w["vivit.layernorm.bias"], hp["eps"])
    return x, x[0], hf_linear(x[0], w, "classifier")


# ----------------------------------------------------------------------------- processors

def raw_frames(seed, frames, height, width):
    """THWC uint8 frames: a moving gradient and box over sensor noise, so resizing has edges to work on."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    out = np.empty((frames, height, width, 3), np.uint8)
    for t in range(frames):
        base = np.stack([40 + 180 * xx / width, 60 + 150 * yy / height, 200 - 120 * (xx + yy) / (width + height)], -1)
        x0 = 4 + 5 * t
        base[8:20, x0:x0 + 14] = [230, 40 + 30 * t, 90]
        out[t] = np.clip(base + rng.integers(-12, 13, base.shape), 0, 255).astype(np.uint8)
    return out


def hf_process(frames, short, crop, scale, offset, mean, std):
    """VideoMAE / Vivit image processor on THWC uint8 frames -> [1, 3, T, crop, crop] float32."""
    out = []
    for frame in frames:
        h, w = frame.shape[:2]
        if w <= h:
            size = (short, int(short * h / w))
        else:
            size = (int(short * w / h), short)
        img = np.asarray(Image.fromarray(frame, "RGB").resize(size, resample=Image.BILINEAR, reducing_gap=None))
        top, left = (img.shape[0] - crop) // 2, (img.shape[1] - crop) // 2
        img = img[top:top + crop, left:left + crop]
        x = (img.astype(np.float64) * scale).astype(np.float32)
        if offset:
            x = x - np.float32(1)
        if mean is not None:
            x = (x - np.array(mean, np.float32)) / np.array(std, np.float32)
        out.append(x.transpose(2, 0, 1))
    return np.stack(out, 1)[None].astype(np.float32)


# ----------------------------------------------------------------------------- folders

def labels_config():
    return OrderedDict([("id2label", {str(i): n for i, n in enumerate(KINETICS_FIRST5)}),
                        ("label2id", {n: i for i, n in enumerate(KINETICS_FIRST5)})])


def write_case(out_dir, name, x, pooled, logits):
    common.save_f32(os.path.join(out_dir, f"last_hidden_state{name}.npy"), x[None])
    common.save_f32(os.path.join(out_dir, f"pooled{name}.npy"), pooled[None])
    common.save_f32(os.path.join(out_dir, f"logits{name}.npy"), logits[None])


VIDEOMAE = {"embed_dim": 32, "n_layer": 2, "n_head": 2, "ffn_dim": 64, "patch": 16, "tubelet": 2, "img_size": 32,
            "frames": 4, "eps": 1e-12, "fc_norm_eps": 1e-5, "resize_short": 32, "crop": 32}
VIVIT = {"embed_dim": 32, "n_layer": 2, "n_head": 2, "ffn_dim": 64, "patch": 16, "tubelet": 2, "img_size": 32,
         "frames": 4, "eps": 1e-6, "resize_short": 36, "crop": 32}
RAW = (4, 40, 52)  # frames, height, width of the processor case


def generate_videomae():
    hp = VIDEOMAE
    dim, tub, patch = hp["embed_dim"], hp["tubelet"], hp["patch"]
    out_dir = common.family_dir("videomae")
    wm = common.WeightMaker(7101)
    w = OrderedDict()
    w["videomae.embeddings.patch_embeddings.projection.weight"] = wm.normal((dim, 3, tub, patch, patch), 1.0 / np.sqrt(3 * tub * patch * patch))
    w["videomae.embeddings.patch_embeddings.projection.bias"] = wm.normal((dim,), 0.02)
    for i in range(hp["n_layer"]):
        w.update(hf_layer_weights(wm, f"videomae.encoder.layer.{i}", dim, hp["ffn_dim"], False, True))
    w["fc_norm.weight"], w["fc_norm.bias"] = wm.layer_norm(dim)
    w["classifier.weight"], w["classifier.bias"] = wm.linear(N_CLASSES, dim)

    clip = common.make_input(7102, (1, 3, hp["frames"], hp["img_size"], hp["img_size"]))
    grid = hp["img_size"] // patch
    n = (hp["frames"] // tub) * grid * grid
    table = sinusoid_table(n, dim)
    # The last block's output bias centres the token mean on 0.5 plus a 0.03 ripple: fc_norm then normalises
    # a vector of variance ~1e-3, where its eps (1e-5, not the config's 1e-12) changes the logits by ~1 %.
    last = f"videomae.encoder.layer.{hp['n_layer'] - 1}.output.dense.bias"
    x, mean, _ = videomae_forward(w, torch.from_numpy(clip), hp, table, hp["fc_norm_eps"])
    ripple = wm.normal((dim,), 0.03)
    w[last] = (f64(w[last]) - mean + 0.5 + f64(ripple)).to(torch.float32)
    x, mean, logits = videomae_forward(w, torch.from_numpy(clip), hp, table, hp["fc_norm_eps"])
    common.save_npy(os.path.join(out_dir, "input.npy"), clip)
    write_case(out_dir, "", x, mean, logits)

    x3d, _, _ = videomae_forward(w, torch.from_numpy(clip), hp, torch.from_numpy(sincos_3d_vjepa(dim, grid, hp["frames"] // tub)), hp["fc_norm_eps"])
    common.save_f32(os.path.join(out_dir, "last_hidden_state_sincos3d.npy"), x3d[None])
    _, _, logits_eps = videomae_forward(w, torch.from_numpy(clip), hp, table, hp["eps"])
    common.save_f32(os.path.join(out_dir, "logits_fc_norm_config_eps.npy"), logits_eps[None])

    frames = raw_frames(7103, *RAW)
    common.save_npy(os.path.join(out_dir, "frames.npy"), frames)
    pixels = hf_process(frames, hp["resize_short"], hp["crop"], 1 / 255, False, common.IMAGENET_MEAN, common.IMAGENET_STD)
    common.save_npy(os.path.join(out_dir, "pixel_values.npy"), pixels)

    common.write_safetensors(os.path.join(out_dir, "model.safetensors"), w)
    cfg = OrderedDict([("architectures", ["VideoMAEForVideoClassification"]), ("attention_probs_dropout_prob", 0.0),
                       ("decoder_hidden_size", 384), ("decoder_intermediate_size", 1536),
                       ("decoder_num_attention_heads", 6), ("decoder_num_hidden_layers", 4), ("hidden_act", "gelu"),
                       ("hidden_dropout_prob", 0.0), ("hidden_size", dim), ("image_size", hp["img_size"]),
                       ("initializer_range", 0.02), ("intermediate_size", hp["ffn_dim"]), ("layer_norm_eps", hp["eps"]),
                       ("model_type", "videomae"), ("norm_pix_loss", True), ("num_attention_heads", hp["n_head"]),
                       ("num_channels", 3), ("num_frames", hp["frames"]), ("num_hidden_layers", hp["n_layer"]),
                       ("patch_size", patch), ("qkv_bias", True), ("torch_dtype", "float32"), ("tubelet_size", tub),
                       ("use_mean_pooling", True)])
    cfg.update(labels_config())
    common.write_json(os.path.join(out_dir, "config.json"), cfg)
    common.write_json(os.path.join(out_dir, "preprocessor_config.json"), OrderedDict([
        ("crop_size", {"height": hp["crop"], "width": hp["crop"]}), ("do_center_crop", True), ("do_normalize", True),
        ("do_rescale", True), ("do_resize", True), ("image_mean", common.IMAGENET_MEAN),
        ("image_processor_type", "VideoMAEImageProcessor"), ("image_std", common.IMAGENET_STD), ("resample", 2),
        ("rescale_factor", 1 / 255), ("size", {"shortest_edge": hp["resize_short"]})]))
    return manifest("videomae", hp, clip, x, logits, {
        "last_hidden_state_sincos3d.npy": "V-JEPA v1's 3-D sincos table (uniform_power) in place of the 1-D one",
        "sincos3d_cosine": common.cosine_stats(x.numpy(), x3d.numpy()),
        "logits_fc_norm_config_eps.npy": "fc_norm at the config's layer_norm_eps (1e-12) instead of nn.LayerNorm's 1e-5",
        "fc_norm_config_eps_max_rel": round(float((logits_eps - logits).abs().max() / logits.abs().max()), 6)},
        pooling="mean of all tokens (no final norm with use_mean_pooling); the classifier reads fc_norm(mean)",
        processor="VideoMAEImageProcessor: shortest edge, Pillow bilinear, centre crop (floor), 1/255, ImageNet mean/std")


def generate_vivit():
    hp = VIVIT
    dim, tub, patch = hp["embed_dim"], hp["tubelet"], hp["patch"]
    out_dir = common.family_dir("vivit")
    grid = hp["img_size"] // patch
    n = (hp["frames"] // tub) * grid * grid
    wm = common.WeightMaker(7201)
    w = OrderedDict()
    w["vivit.embeddings.cls_token"] = wm.normal((1, 1, dim), 0.5)
    w["vivit.embeddings.patch_embeddings.projection.weight"] = wm.normal((dim, 3, tub, patch, patch), 1.0 / np.sqrt(3 * tub * patch * patch))
    w["vivit.embeddings.patch_embeddings.projection.bias"] = wm.normal((dim,), 0.02)
    w["vivit.embeddings.position_embeddings"] = wm.normal((1, n + 1, dim), 0.5)
    for i in range(hp["n_layer"]):
        w.update(hf_layer_weights(wm, f"vivit.encoder.layer.{i}", dim, hp["ffn_dim"], True, False))
    w["vivit.layernorm.weight"], w["vivit.layernorm.bias"] = wm.layer_norm(dim)
    w["classifier.weight"], w["classifier.bias"] = wm.linear(N_CLASSES, dim)

    clip = common.make_input(7202, (1, 3, hp["frames"], hp["img_size"], hp["img_size"]))
    x, cls, logits = vivit_forward(w, torch.from_numpy(clip), hp)
    common.save_npy(os.path.join(out_dir, "input.npy"), clip)
    write_case(out_dir, "", x, cls, logits)
    # A bias on every key adds q.b_k to a query's every score: softmax drops it. Dropped, it changes nothing
    # (why VideoMAE's zero k_bias is exact); dropping the query and value biases too does change the tokens.
    x_nok, _, _ = vivit_forward(w, torch.from_numpy(clip), hp, drop_key_bias=True)
    common.save_f32(os.path.join(out_dir, "last_hidden_state_no_key_bias.npy"), x_nok[None])
    no_bias = OrderedDict((k, torch.zeros_like(v) if k.endswith(("query.bias", "key.bias", "value.bias")) else v) for k, v in w.items())
    x_nob, _, _ = vivit_forward(no_bias, torch.from_numpy(clip), hp)
    common.save_f32(os.path.join(out_dir, "last_hidden_state_no_qkv_bias.npy"), x_nob[None])

    frames = raw_frames(7203, *RAW)
    common.save_npy(os.path.join(out_dir, "frames.npy"), frames)
    half = [0.5, 0.5, 0.5]
    pixels = hf_process(frames, hp["resize_short"], hp["crop"], 1 / 127.5, True, half, half)
    common.save_npy(os.path.join(out_dir, "pixel_values.npy"), pixels)
    once = hf_process(frames, hp["resize_short"], hp["crop"], 1 / 127.5, True, None, None)
    common.save_npy(os.path.join(out_dir, "pixel_values_no_second_norm.npy"), once)

    common.write_safetensors(os.path.join(out_dir, "model.safetensors"), w)
    cfg = OrderedDict([("architectures", ["VivitForVideoClassification"]), ("attention_probs_dropout_prob", 0.0),
                       ("hidden_act", "gelu_fast"), ("hidden_dropout_prob", 0.0), ("hidden_size", dim),
                       ("image_size", hp["img_size"]), ("initializer_range", 0.02), ("intermediate_size", hp["ffn_dim"]),
                       ("layer_norm_eps", hp["eps"]), ("model_type", "vivit"), ("num_attention_heads", hp["n_head"]),
                       ("num_channels", 3), ("num_frames", hp["frames"]), ("num_hidden_layers", hp["n_layer"]),
                       ("qkv_bias", True), ("torch_dtype", "float32"), ("tubelet_size", [tub, patch, patch])])
    cfg.update(labels_config())
    common.write_json(os.path.join(out_dir, "config.json"), cfg)
    common.write_json(os.path.join(out_dir, "preprocessor_config.json"), OrderedDict([
        ("crop_size", {"height": hp["crop"], "width": hp["crop"]}), ("do_center_crop", True), ("do_normalize", True),
        ("do_rescale", True), ("do_resize", True), ("image_mean", half), ("image_processor_type", "VivitImageProcessor"),
        ("image_std", half), ("offset", True), ("resample", 2), ("rescale_factor", 1 / 127.5),
        ("size", {"shortest_edge": hp["resize_short"]})]))
    return manifest("vivit", hp, clip, x, logits, {
        "last_hidden_state_no_qkv_bias.npy": "query, key and value biases dropped",
        "no_qkv_bias_cosine": common.cosine_stats(x.numpy(), x_nob.numpy()),
        "last_hidden_state_no_key_bias.npy": "key bias alone dropped: softmax-invariant, so it EQUALS the golden "
                                             "(max |diff| below); no judge can fail it",
        "no_key_bias_max_abs": common.max_abs_diff(x.numpy(), x_nok.numpy()),
        "pixel_values_no_second_norm.npy": "processor output with the offset but without the second mean/std 0.5"},
        pooling="CLS row after the final LayerNorm; the classifier reads it",
        processor="VivitImageProcessor: shortest edge, Pillow bilinear, centre crop (floor), 1/127.5, offset -1, "
                  "then mean = std = 0.5")


def manifest(family, hp, clip, x, logits, controls, *, pooling, processor):
    return {
        "family": family,
        "source_layout": f"HF transformers folder ({'VideoMAE' if family == 'videomae' else 'Vivit'}ForVideoClassification): "
                         "config.json (id2label: the first 5 Kinetics-400 classes) + model.safetensors (F32) + preprocessor_config.json",
        "checkpoint": ["config.json", "model.safetensors", "preprocessor_config.json"],
        "hparams": hp,
        "input": "input.npy", "input_shape": list(clip.shape),
        "input_layout": "NCTHW float32, already preprocessed (HF takes B,T,C,H,W and permutes to this)",
        "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": [1] + list(x.shape),
        "pooled": "pooled.npy", "pooled_shape": [1, hp["embed_dim"]],
        "logits": "logits.npy", "logits_shape": [1, int(logits.shape[0])],
        "labels": KINETICS_FIRST5,
        "pooling": pooling,
        "processor": {"frames": "frames.npy", "frames_layout": "THWC uint8", "pixel_values": "pixel_values.npy",
                      "pixel_values_layout": "NCTHW float32", "recipe": processor},
        "reference": "own float64 transcription of transformers' modeling code module by module (HF names, "
                     "separate q/k/v), F.conv3d float64; the processor with Pillow and numpy as the slow HF processor",
        "negative_controls": controls,
    }
