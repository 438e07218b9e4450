"""Run a CLS + learned-position ViT through torchvision's own VisionTransformer blocks in float64.

The independent implementation for the HF-ViT family (DINOv2, plain ViT): torchvision's patch conv,
EncoderBlock (nn.MultiheadAttention, MLPBlock with erf GELU) and final LayerNorm. DINOv2 layer-scale is
folded exactly into out_proj / mlp.3 (ls*(Wx+b) = (diag(ls)W)x + ls*b); registers are inserted after the
position add, between CLS and patches, as HF's Dinov2WithRegisters embeddings do.
"""
from functools import partial

import torch
import torchvision

from common import F64, f64


def build(weights, *, image_size, patch, dim, n_layer, n_head, ffn_dim, eps):
    """weights: canonical fused names (cls_token, pos_embed, patch_embed.proj.*, blocks.i.*, norm.*,
    optional blocks.i.ls1/ls2). Returns a float64 torchvision VisionTransformer in eval mode."""
    vit = torchvision.models.VisionTransformer(
        image_size=image_size, patch_size=patch, num_layers=n_layer, num_heads=n_head, hidden_dim=dim,
        mlp_dim=ffn_dim, norm_layer=partial(torch.nn.LayerNorm, eps=eps)).to(F64).eval()
    sd = vit.state_dict()
    sd["class_token"] = f64(weights["cls_token"])
    sd["conv_proj.weight"] = f64(weights["patch_embed.proj.weight"])
    sd["conv_proj.bias"] = f64(weights["patch_embed.proj.bias"])
    _fill_encoder(sd, "encoder.", weights, n_layer, dim)
    vit.load_state_dict(sd)
    return vit


def _fill_encoder(sd, prefix, weights, n_layer, dim):
    sd[prefix + "pos_embedding"] = f64(weights["pos_embed"])
    for i in range(n_layer):
        src, dst = f"blocks.{i}.", f"{prefix}layers.encoder_layer_{i}."
        ls1 = f64(weights[src + "ls1"]) if src + "ls1" in weights else torch.ones(dim, dtype=F64)
        ls2 = f64(weights[src + "ls2"]) if src + "ls2" in weights else torch.ones(dim, dtype=F64)
        sd[dst + "ln_1.weight"] = f64(weights[src + "norm1.weight"])
        sd[dst + "ln_1.bias"] = f64(weights[src + "norm1.bias"])
        sd[dst + "self_attention.in_proj_weight"] = f64(weights[src + "attn.qkv.weight"])
        sd[dst + "self_attention.in_proj_bias"] = f64(weights[src + "attn.qkv.bias"])
        sd[dst + "self_attention.out_proj.weight"] = ls1[:, None] * f64(weights[src + "attn.proj.weight"])
        sd[dst + "self_attention.out_proj.bias"] = ls1 * f64(weights[src + "attn.proj.bias"])
        sd[dst + "ln_2.weight"] = f64(weights[src + "norm2.weight"])
        sd[dst + "ln_2.bias"] = f64(weights[src + "norm2.bias"])
        sd[dst + "mlp.0.weight"] = f64(weights[src + "mlp.fc1.weight"])
        sd[dst + "mlp.0.bias"] = f64(weights[src + "mlp.fc1.bias"])
        sd[dst + "mlp.3.weight"] = ls2[:, None] * f64(weights[src + "mlp.fc2.weight"])
        sd[dst + "mlp.3.bias"] = ls2 * f64(weights[src + "mlp.fc2.bias"])
    sd[prefix + "ln.weight"] = f64(weights["norm.weight"])
    sd[prefix + "ln.bias"] = f64(weights["norm.bias"])


@torch.no_grad()
def encode_tokens_with_table(weights, tokens, *, n_layer, n_head, ffn_dim, eps):
    """torchvision's Encoder (pos_embedding add, EncoderBlocks, final LN) over prefix-free tokens [N, D],
    for the fixed-table families (I-JEPA, V-JEPA v1) whose table has no CLS row. Returns [1, N, D]."""
    n_tok, dim = tokens.shape
    encoder = torchvision.models.vision_transformer.Encoder(
        seq_length=n_tok, num_layers=n_layer, num_heads=n_head, hidden_dim=dim, mlp_dim=ffn_dim, dropout=0.0,
        attention_dropout=0.0, norm_layer=partial(torch.nn.LayerNorm, eps=eps)).to(F64).eval()
    sd = encoder.state_dict()
    _fill_encoder(sd, "", weights, n_layer, dim)
    encoder.load_state_dict(sd)
    return encoder(tokens[None])


@torch.no_grad()
def last_hidden_state(vit, pixels, register_tokens=None):
    """[1, 1 + R + N, D]: CLS, registers (no position), patches; after the final LayerNorm."""
    tokens = vit._process_input(f64(pixels))
    x = torch.cat([vit.class_token.expand(tokens.shape[0], -1, -1), tokens], dim=1)
    x = x + vit.encoder.pos_embedding
    if register_tokens is not None:
        x = torch.cat([x[:, :1], f64(register_tokens).expand(x.shape[0], -1, -1), x[:, 1:]], dim=1)
    return vit.encoder.ln(vit.encoder.layers(x))
