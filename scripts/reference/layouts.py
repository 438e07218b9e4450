"""Renaming from the canonical fused names (Meta style, no prefix) to each release's checkpoint names.

Canonical: patch_embed.proj.{weight,bias}, pos_embed, cls_token, blocks.{i}.{norm1, attn.qkv, attn.proj,
norm2, mlp.fc1, mlp.fc2, ls1, ls2}, norm.{weight,bias}. HF layouts split attn.qkv into three equal row
blocks q;k;v (what the transformers converters do).
"""
from collections import OrderedDict


def split_qkv(weight_or_bias):
    dim = weight_or_bias.shape[0] // 3
    return [weight_or_bias[i * dim:(i + 1) * dim].clone() for i in range(3)]


def _split_block(out, weights, src, dst_qkv):
    for suffix in ("weight", "bias"):
        if f"{src}attn.qkv.{suffix}" not in weights:  # qkv_bias false
            continue
        for dst, part in zip(dst_qkv, split_qkv(weights[f"{src}attn.qkv.{suffix}"])):
            out[f"{dst}.{suffix}"] = part


def hf_dinov2(weights, n_layer, n_register=0):
    """transformers Dinov2Model / Dinov2WithRegistersModel state dict (no prefix)."""
    out = OrderedDict()
    out["embeddings.cls_token"] = weights["cls_token"]
    out["embeddings.mask_token"] = weights["mask_token"]
    if n_register:
        out["embeddings.register_tokens"] = weights["register_tokens"]
    out["embeddings.position_embeddings"] = weights["pos_embed"]
    out["embeddings.patch_embeddings.projection.weight"] = weights["patch_embed.proj.weight"]
    out["embeddings.patch_embeddings.projection.bias"] = weights["patch_embed.proj.bias"]
    for i in range(n_layer):
        s, d = f"blocks.{i}.", f"encoder.layer.{i}."
        out[d + "norm1.weight"], out[d + "norm1.bias"] = weights[s + "norm1.weight"], weights[s + "norm1.bias"]
        _split_block(out, weights, s, [d + "attention.attention.query", d + "attention.attention.key",
                                       d + "attention.attention.value"])
        out[d + "attention.output.dense.weight"] = weights[s + "attn.proj.weight"]
        out[d + "attention.output.dense.bias"] = weights[s + "attn.proj.bias"]
        out[d + "layer_scale1.lambda1"] = weights[s + "ls1"]
        out[d + "norm2.weight"], out[d + "norm2.bias"] = weights[s + "norm2.weight"], weights[s + "norm2.bias"]
        if s + "mlp.w12.weight" in weights:  # use_swiglu_ffn: Dinov2SwiGLUFFN
            out[d + "mlp.weights_in.weight"] = weights[s + "mlp.w12.weight"]
            out[d + "mlp.weights_in.bias"] = weights[s + "mlp.w12.bias"]
            out[d + "mlp.weights_out.weight"] = weights[s + "mlp.w3.weight"]
            out[d + "mlp.weights_out.bias"] = weights[s + "mlp.w3.bias"]
        else:
            out[d + "mlp.fc1.weight"], out[d + "mlp.fc1.bias"] = weights[s + "mlp.fc1.weight"], weights[s + "mlp.fc1.bias"]
            out[d + "mlp.fc2.weight"], out[d + "mlp.fc2.bias"] = weights[s + "mlp.fc2.weight"], weights[s + "mlp.fc2.bias"]
        out[d + "layer_scale2.lambda1"] = weights[s + "ls2"]
    out["layernorm.weight"], out["layernorm.bias"] = weights["norm.weight"], weights["norm.bias"]
    return out


def hf_vit(weights, n_layer, prefix="", with_cls=True):
    """transformers ViTModel (add_pooling_layer=False) names; with_cls=False gives IJepaModel's."""
    out = OrderedDict()
    if with_cls:
        out[prefix + "embeddings.cls_token"] = weights["cls_token"]
    out[prefix + "embeddings.position_embeddings"] = weights["pos_embed"]
    out[prefix + "embeddings.patch_embeddings.projection.weight"] = weights["patch_embed.proj.weight"]
    out[prefix + "embeddings.patch_embeddings.projection.bias"] = weights["patch_embed.proj.bias"]
    for i in range(n_layer):
        s, d = f"blocks.{i}.", f"{prefix}encoder.layer.{i}."
        out[d + "layernorm_before.weight"] = weights[s + "norm1.weight"]
        out[d + "layernorm_before.bias"] = weights[s + "norm1.bias"]
        _split_block(out, weights, s, [d + "attention.attention.query", d + "attention.attention.key",
                                       d + "attention.attention.value"])
        out[d + "attention.output.dense.weight"] = weights[s + "attn.proj.weight"]
        out[d + "attention.output.dense.bias"] = weights[s + "attn.proj.bias"]
        out[d + "layernorm_after.weight"] = weights[s + "norm2.weight"]
        out[d + "layernorm_after.bias"] = weights[s + "norm2.bias"]
        out[d + "intermediate.dense.weight"] = weights[s + "mlp.fc1.weight"]
        out[d + "intermediate.dense.bias"] = weights[s + "mlp.fc1.bias"]
        out[d + "output.dense.weight"] = weights[s + "mlp.fc2.weight"]
        out[d + "output.dense.bias"] = weights[s + "mlp.fc2.bias"]
    out[prefix + "layernorm.weight"] = weights["norm.weight"]
    out[prefix + "layernorm.bias"] = weights["norm.bias"]
    return out


def hf_vjepa2_encoder(weights, n_layer):
    """transformers VJEPA2Model encoder names (encoder.embeddings..., encoder.layer.{i}..., encoder.layernorm)."""
    out = OrderedDict()
    out["encoder.embeddings.patch_embeddings.proj.weight"] = weights["patch_embed.proj.weight"]
    out["encoder.embeddings.patch_embeddings.proj.bias"] = weights["patch_embed.proj.bias"]
    for i in range(n_layer):
        s, d = f"blocks.{i}.", f"encoder.layer.{i}."
        out[d + "norm1.weight"], out[d + "norm1.bias"] = weights[s + "norm1.weight"], weights[s + "norm1.bias"]
        _split_block(out, weights, s, [d + "attention.query", d + "attention.key", d + "attention.value"])
        out[d + "attention.proj.weight"] = weights[s + "attn.proj.weight"]
        out[d + "attention.proj.bias"] = weights[s + "attn.proj.bias"]
        out[d + "norm2.weight"], out[d + "norm2.bias"] = weights[s + "norm2.weight"], weights[s + "norm2.bias"]
        out[d + "mlp.fc1.weight"], out[d + "mlp.fc1.bias"] = weights[s + "mlp.fc1.weight"], weights[s + "mlp.fc1.bias"]
        out[d + "mlp.fc2.weight"], out[d + "mlp.fc2.bias"] = weights[s + "mlp.fc2.weight"], weights[s + "mlp.fc2.bias"]
    out["encoder.layernorm.weight"], out["encoder.layernorm.bias"] = weights["norm.weight"], weights["norm.bias"]
    return out


def prefixed(weights, prefix):
    """Meta checkpoints keep the canonical names under a DDP/wrapper prefix (e.g. 'module.backbone.')."""
    return OrderedDict((prefix + k, v) for k, v in weights.items())


def variant_sharing_storage(weights, differing, perturb):
    """A second encoder dict (e.g. `encoder` next to `target_encoder`) that shares every tensor object
    with `weights` except those named in `differing`, which are replaced by perturb(tensor). torch.save
    stores a shared tensor once, so the decoy costs only the differing tensors, yet a converter that
    reads the wrong entry produces different outputs."""
    return OrderedDict((k, perturb(v) if k in differing else v) for k, v in weights.items())
