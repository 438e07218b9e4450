"""A DINOv3 ViT at real size with seeded random weights, for the onnxruntime-node comparison
(jepa-bench peers --net dinov3-s16 | dinov3-b16):

- OUT/NAME_tokens.onnx: pixels [N,3,224,224] -> tokens [N,5+196,D] after the final LayerNorm, any batch N;
- OUT/NAME-hf/: the same weights as an HF DINOv3ViTModel folder (config.json, preprocessor_config.json,
  model.safetensors), which `jepa convert` reads.

The module follows transformers' modeling_dinov3_vit.py (separate q/k/v with no key bias, 2-D RoPE on the
patch tokens only with the "separate" patch-centre coordinates, layer scale, GELU MLP, final norm), with the
RoPE tables of the 14 x 14 grid computed once in float32.

    /usr/bin/python3 scripts/bench/export_dinov3.py dinov3-s16 tmp/peers
    /usr/bin/python3 scripts/bench/export_dinov3.py dinov3-l16 tmp/bench-models --no-onnx   (the HF folder only)
    /usr/bin/python3 scripts/bench/export_dinov3.py dinov3-b16 tmp/peers --transformers-js
        (also NAME-hf/onnx/model.onnx as transformers.js loads it: pixel_values -> last_hidden_state, pooler_output)
"""
import json
import math
import os
import sys

import torch

from export_vit_b16 import save_safetensors  # this folder is on the path of a script run from it

SIZES = {
    # name: (D, depth, heads) of hub/backbones.py dinov3_vits16 / dinov3_vitb16
    "dinov3-s16": (384, 12, 6),
    "dinov3-b16": (768, 12, 12),
    "dinov3-l16": (1024, 24, 16),
}
PATCH, REGISTERS, SIDE, BASE, EPS = 16, 4, 224, 100.0, 1e-5


def rope_tables(head_dim, rows, cols):
    inv_freq = 1.0 / BASE ** torch.arange(0, 1, 4 / head_dim, dtype=torch.float32)
    ch = (torch.arange(rows, dtype=torch.float32) + 0.5) / rows
    cw = (torch.arange(cols, dtype=torch.float32) + 0.5) / cols
    coords = torch.stack(torch.meshgrid(ch, cw, indexing="ij"), dim=-1).flatten(0, 1) * 2.0 - 1.0
    angles = (2 * math.pi * coords[:, :, None] * inv_freq[None, None, :]).flatten(1, 2).tile(2)
    return torch.cos(angles), torch.sin(angles)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class Layer(torch.nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(dim, eps=EPS)
        self.q_proj = torch.nn.Linear(dim, dim)
        self.k_proj = torch.nn.Linear(dim, dim, bias=False)
        self.v_proj = torch.nn.Linear(dim, dim)
        self.o_proj = torch.nn.Linear(dim, dim)
        self.lambda1 = torch.nn.Parameter(torch.ones(dim))
        self.norm2 = torch.nn.LayerNorm(dim, eps=EPS)
        self.up_proj = torch.nn.Linear(dim, 4 * dim)
        self.down_proj = torch.nn.Linear(4 * dim, dim)
        self.lambda2 = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x, cos, sin):
        b, n, d = x.shape
        hd = d // self.heads
        h = self.norm1(x)
        q, k, v = (p(h).view(b, n, self.heads, hd).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))
        prefix = n - cos.shape[0]
        q = torch.cat((q[:, :, :prefix], q[:, :, prefix:] * cos + rotate_half(q[:, :, prefix:]) * sin), dim=2)
        k = torch.cat((k[:, :, :prefix], k[:, :, prefix:] * cos + rotate_half(k[:, :, prefix:]) * sin), dim=2)
        a = torch.softmax(q @ k.transpose(-1, -2) * hd**-0.5, dim=-1) @ v
        x = x + self.o_proj(a.transpose(1, 2).reshape(b, n, d)) * self.lambda1
        return x + self.down_proj(torch.nn.functional.gelu(self.up_proj(self.norm2(x)))) * self.lambda2


class Dinov3(torch.nn.Module):
    def __init__(self, dim, depth, heads):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, dim, PATCH, PATCH)
        self.cls = torch.nn.Parameter(torch.zeros(1, 1, dim))
        self.registers = torch.nn.Parameter(torch.zeros(1, REGISTERS, dim))
        self.layers = torch.nn.ModuleList(Layer(dim, heads) for _ in range(depth))
        self.norm = torch.nn.LayerNorm(dim, eps=EPS)
        cos, sin = rope_tables(dim // heads, SIDE // PATCH, SIDE // PATCH)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, pixels):
        x = self.patch(pixels).flatten(2).transpose(1, 2)
        b = x.shape[0]
        x = torch.cat((self.cls.expand(b, -1, -1), self.registers.expand(b, -1, -1), x), dim=1)
        for layer in self.layers:
            x = layer(x, self.cos, self.sin)
        return self.norm(x)


def seeded(name):
    torch.manual_seed(0)
    net = Dinov3(*SIZES[name]).eval()
    with torch.no_grad():
        for pname, p in net.named_parameters():
            if pname.endswith(("lambda1", "lambda2")):
                p.uniform_(0.5, 1.5)
            elif "norm" in pname:
                p.normal_(1.0 if pname.endswith("weight") else 0.0, 0.05)
            elif p.dim() >= 2:
                torch.nn.init.trunc_normal_(p, std=0.02)
            else:
                p.normal_(0, 0.02)
    return net


class HfOutputs(torch.nn.Module):
    """The module under the input and output names transformers.js's DINOv3ViTModel session expects."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, pixel_values):
        tokens = self.net(pixel_values)
        return tokens, tokens[:, 0]


def hf_tensors(net):
    """The module's weights under DINOv3ViTModel's names."""
    t = {
        "embeddings.cls_token": net.cls,
        "embeddings.mask_token": torch.zeros_like(net.cls),
        "embeddings.register_tokens": net.registers,
        "embeddings.patch_embeddings.weight": net.patch.weight,
        "embeddings.patch_embeddings.bias": net.patch.bias,
        "norm.weight": net.norm.weight,
        "norm.bias": net.norm.bias,
    }
    for i, layer in enumerate(net.layers):
        s = f"layer.{i}."
        t[s + "norm1.weight"], t[s + "norm1.bias"] = layer.norm1.weight, layer.norm1.bias
        for p in ("q_proj", "k_proj", "v_proj", "o_proj"):
            lin = getattr(layer, p)
            t[s + f"attention.{p}.weight"] = lin.weight
            if lin.bias is not None:
                t[s + f"attention.{p}.bias"] = lin.bias
        t[s + "layer_scale1.lambda1"] = layer.lambda1
        t[s + "norm2.weight"], t[s + "norm2.bias"] = layer.norm2.weight, layer.norm2.bias
        t[s + "mlp.up_proj.weight"], t[s + "mlp.up_proj.bias"] = layer.up_proj.weight, layer.up_proj.bias
        t[s + "mlp.down_proj.weight"], t[s + "mlp.down_proj.bias"] = layer.down_proj.weight, layer.down_proj.bias
        t[s + "layer_scale2.lambda1"] = layer.lambda2
    return t


def main():
    name, out = sys.argv[1], sys.argv[2]
    dim, depth, heads = SIZES[name]
    os.makedirs(os.path.join(out, f"{name}-hf"), exist_ok=True)
    net = seeded(name)
    if "--no-onnx" not in sys.argv[3:]:
        torch.onnx.export(net, torch.randn(1, 3, SIDE, SIDE), os.path.join(out, f"{name}_tokens.onnx"), opset_version=17,
                          input_names=["pixels"], output_names=["tokens"],
                          dynamic_axes={"pixels": {0: "batch"}, "tokens": {0: "batch"}})
    folder = os.path.join(out, f"{name}-hf")
    if "--transformers-js" in sys.argv[3:]:
        os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
        torch.onnx.export(HfOutputs(net), torch.randn(1, 3, SIDE, SIDE), os.path.join(folder, "onnx", "model.onnx"),
                          opset_version=17, input_names=["pixel_values"],
                          output_names=["last_hidden_state", "pooler_output"],
                          dynamic_axes={"pixel_values": {0: "batch"}, "last_hidden_state": {0: "batch"},
                                        "pooler_output": {0: "batch"}})
    save_safetensors(os.path.join(folder, "model.safetensors"), hf_tensors(net))
    config = {"architectures": ["DINOv3ViTModel"], "model_type": "dinov3_vit", "hidden_size": dim,
              "intermediate_size": 4 * dim, "num_hidden_layers": depth, "num_attention_heads": heads,
              "hidden_act": "gelu", "layer_norm_eps": EPS, "rope_theta": BASE, "image_size": SIDE,
              "patch_size": PATCH, "num_channels": 3, "query_bias": True, "key_bias": False, "value_bias": True,
              "proj_bias": True, "mlp_bias": True, "use_gated_mlp": False, "num_register_tokens": REGISTERS,
              "_name_or_path": f"seeded-{name}"}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    pre = {"image_processor_type": "DINOv3ViTImageProcessorFast", "do_resize": True,
           "size": {"height": SIDE, "width": SIDE}, "resample": 2, "do_rescale": True,
           "rescale_factor": 1 / 255, "do_normalize": True, "image_mean": [0.485, 0.456, 0.406],
           "image_std": [0.229, 0.224, 0.225]}
    with open(os.path.join(folder, "preprocessor_config.json"), "w") as f:
        json.dump(pre, f, indent=1)
    print("wrote", out)


if __name__ == "__main__":
    main()
