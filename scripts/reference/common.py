"""Shared pieces of the float64 reference: seeded weights, file writers, and the pre-LN ViT maths.

Everything here is plain torch float64 arithmetic written from the reference sources' semantics;
nothing imports the engine. Weights are drawn in float32 (what the checkpoints store) and the
reference upcasts those exact float32 values to float64.
"""
import json
import math
import os
import struct
from collections import OrderedDict

import numpy as np
import torch

F64 = torch.float64
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE_ROOT = os.path.join(REPO_ROOT, "fixtures", "reference")
IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]


# ----------------------------------------------------------------------------- seeded weights

class WeightMaker:
    """Draws float32 tensors from one seeded generator, in call order (so the order is the seed)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def normal(self, shape, std, mean=0.0):
        return torch.from_numpy((mean + std * self.rng.standard_normal(shape)).astype(np.float32))

    def uniform(self, shape, low, high):
        return torch.from_numpy(self.rng.uniform(low, high, shape).astype(np.float32))

    def linear(self, out_dim, in_dim, bias_std=0.02):
        # 1/sqrt(fan_in) keeps every projection's output O(1) for O(1) inputs.
        return self.normal((out_dim, in_dim), 1.0 / math.sqrt(in_dim)), self.normal((out_dim,), bias_std)

    def layer_norm(self, dim):
        return self.normal((dim,), 0.1, mean=1.0), self.normal((dim,), 0.05)


QK_GAIN = 2.0


def make_block_weights(wm, dim, ffn_dim):
    """One pre-LN block in the fused Meta naming (attn.qkv rows ordered q;k;v).

    q and k rows are scaled by QK_GAIN so attention logits have std ~QK_GAIN^2: attention as peaked as in
    trained ViTs, which is what makes position handling (RoPE layout, masks) visible in the outputs."""
    p = OrderedDict()
    p["norm1.weight"], p["norm1.bias"] = wm.layer_norm(dim)
    qkv_w, qkv_b = wm.linear(3 * dim, dim)
    qkv_w[:2 * dim] *= QK_GAIN
    p["attn.qkv.weight"], p["attn.qkv.bias"] = qkv_w, qkv_b
    p["attn.proj.weight"], p["attn.proj.bias"] = wm.linear(dim, dim)
    p["norm2.weight"], p["norm2.bias"] = wm.layer_norm(dim)
    p["mlp.fc1.weight"], p["mlp.fc1.bias"] = wm.linear(ffn_dim, dim)
    p["mlp.fc2.weight"], p["mlp.fc2.bias"] = wm.linear(dim, ffn_dim)
    return p


def make_input(seed, shape):
    """A preprocessed pixel tensor: uniform [0,1) pixels normalised with ImageNet mean/std (dim 1 = C)."""
    rng = np.random.default_rng(seed)
    pixels = rng.uniform(0.0, 1.0, shape)
    view = [1] * len(shape)
    view[1] = 3
    mean = np.array(IMAGENET_MEAN).reshape(view)
    std = np.array(IMAGENET_STD).reshape(view)
    return ((pixels - mean) / std).astype(np.float32)


# ----------------------------------------------------------------------------- float64 maths

def f64(t):
    return t.detach().to(F64) if isinstance(t, torch.Tensor) else torch.from_numpy(np.asarray(t)).to(F64)


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * f64(weight) + f64(bias)


def linear(x, weight, bias):
    return x @ f64(weight).T + f64(bias)


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def attention(x, qkv_w, qkv_b, proj_w, proj_b, n_head, rope=None, allowed=None):
    """Multi-head self-attention over x [N, D].

    rope(t) rotates a [H, N, hd] tensor and is applied to q and k after the projection (bias
    included) and before the hd^-0.5 scale. allowed is a bool [N, N] (query row, key column).
    """
    n_tok, dim = x.shape
    head_dim = dim // n_head
    qkv = linear(x, qkv_w, qkv_b).reshape(n_tok, 3, n_head, head_dim).permute(1, 2, 0, 3)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if rope is not None:
        q, k = rope(q), rope(k)
    scores = (q @ k.transpose(-1, -2)) * head_dim ** -0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    out = (probs @ v).permute(1, 0, 2).reshape(n_tok, dim)
    return linear(out, proj_w, proj_b)


def vit_block(x, p, n_head, eps, rope=None, allowed=None, layer_scale=None):
    """x += [ls1 *] attn(LN1 x); x += [ls2 *] mlp(LN2 x) with fused-qkv names (see make_block_weights)."""
    y = attention(layer_norm(x, p["norm1.weight"], p["norm1.bias"], eps), p["attn.qkv.weight"],
                  p["attn.qkv.bias"], p["attn.proj.weight"], p["attn.proj.bias"], n_head, rope, allowed)
    if layer_scale is not None:
        y = y * f64(layer_scale[0])
    x = x + y
    h = layer_norm(x, p["norm2.weight"], p["norm2.bias"], eps)
    y = linear(gelu_erf(linear(h, p["mlp.fc1.weight"], p["mlp.fc1.bias"])), p["mlp.fc2.weight"], p["mlp.fc2.bias"])
    if layer_scale is not None:
        y = y * f64(layer_scale[1])
    return x + y


def block_params(weights, prefix):
    return {k[len(prefix):]: v for k, v in weights.items() if k.startswith(prefix)}


def patch_embed_2d(pixels, weight, bias):
    """Strided Conv2d on [1,3,H,W] -> tokens [N, D], row-major (h then w)."""
    patch = weight.shape[-1]
    out = torch.nn.functional.conv2d(f64(pixels), f64(weight), f64(bias), stride=patch)
    return out.flatten(2)[0].T


def patch_embed_3d(clip, weight, bias):
    """Strided Conv3d on [1,3,T,H,W] -> tokens [N, D], order t, then h, then w."""
    tubelet, patch = weight.shape[2], weight.shape[-1]
    out = torch.nn.functional.conv3d(f64(clip), f64(weight), f64(bias), stride=(tubelet, patch, patch))
    return out.flatten(2)[0].T


# ----------------------------------------------------------------------------- comparisons

def cosine_stats(ref, other):
    """Per-token cosine (min / mean) and the cosine of the flattened tensors."""
    a = np.asarray(ref, dtype=np.float64).reshape(-1, np.shape(ref)[-1])
    b = np.asarray(other, dtype=np.float64).reshape(-1, np.shape(other)[-1])
    per_token = (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
    flat = float((a * b).sum() / (np.linalg.norm(a) * np.linalg.norm(b)))
    return {"per_token_min": round(float(per_token.min()), 6), "per_token_mean": round(float(per_token.mean()), 6),
            "flat": round(flat, 6)}


def max_abs_diff(a, b):
    return float(np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))))


# ----------------------------------------------------------------------------- writers

_ST_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.int64: "I64"}


def write_safetensors(path, tensors, metadata=None):
    """Minimal safetensors writer: u64 header length, JSON header (sorted names), raw little-endian data."""
    names = sorted(tensors)
    header = OrderedDict()
    header["__metadata__"] = metadata or {"format": "pt"}
    blobs, offset = [], 0
    for name in names:
        t = tensors[name].contiguous()
        array = t.numpy()
        blob = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": _ST_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=False)
        f.write("\n")


def save_npy(path, array):
    np.save(path, np.ascontiguousarray(array))


def save_f32(path, tensor):
    array = tensor.detach().cpu().numpy() if isinstance(tensor, torch.Tensor) else np.asarray(tensor)
    np.save(path, np.ascontiguousarray(array.astype(np.float32)))


def family_dir(name):
    path = os.path.join(FIXTURE_ROOT, name)
    os.makedirs(path, exist_ok=True)
    for entry in os.listdir(path):
        full = os.path.join(path, entry)
        if os.path.isfile(full):
            os.remove(full)
    return path


def file_table(directory):
    """relative path -> size in bytes for every file of a fixture folder (subfolders after the folder's own
    files) but the manifest itself."""
    table = {}
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(root, name), directory)
            if rel != "manifest.json":
                table[rel] = os.path.getsize(os.path.join(root, name))
    return table


def torch_save_deterministic(obj, path):
    # torch.save's zip records carry no timestamps and storage keys are assigned in traversal order.
    torch.save(obj, path)
