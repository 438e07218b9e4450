"""A ViT-H/14-sized I-JEPA checkpoint in the HF IJepaModel folder layout with random weights, for
timing the converter (real size: 1280 wide, 32 layers, about 2.5 GB of float32).

    /usr/bin/python3 scripts/bench/make_vith_ijepa.py tmp/vith-ijepa
"""
import os
import sys
from collections import OrderedDict

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
import common  # noqa: E402
from layouts import hf_vit  # noqa: E402
from positions import sincos_2d_ijepa  # noqa: E402

DIM, LAYERS, HEADS, FFN, PATCH, IMG = 1280, 32, 16, 5120, 14, 224


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(5)
    rand = lambda *shape: torch.from_numpy((rng.standard_normal(shape, dtype=np.float32) * 0.02))  # noqa: E731
    w = OrderedDict()
    w["patch_embed.proj.weight"] = rand(DIM, 3, PATCH, PATCH)
    w["patch_embed.proj.bias"] = rand(DIM)
    w["pos_embed"] = torch.from_numpy(sincos_2d_ijepa(DIM, IMG // PATCH).astype(np.float32))[None]
    for i in range(LAYERS):
        p = f"blocks.{i}."
        w[p + "norm1.weight"], w[p + "norm1.bias"] = torch.ones(DIM), rand(DIM)
        w[p + "attn.qkv.weight"], w[p + "attn.qkv.bias"] = rand(3 * DIM, DIM), rand(3 * DIM)
        w[p + "attn.proj.weight"], w[p + "attn.proj.bias"] = rand(DIM, DIM), rand(DIM)
        w[p + "norm2.weight"], w[p + "norm2.bias"] = torch.ones(DIM), rand(DIM)
        w[p + "mlp.fc1.weight"], w[p + "mlp.fc1.bias"] = rand(FFN, DIM), rand(FFN)
        w[p + "mlp.fc2.weight"], w[p + "mlp.fc2.bias"] = rand(DIM, FFN), rand(DIM)
    w["norm.weight"], w["norm.bias"] = torch.ones(DIM), rand(DIM)
    common.write_safetensors(os.path.join(out, "model.safetensors"), hf_vit(w, LAYERS, with_cls=False))
    common.write_json(os.path.join(out, "config.json"), OrderedDict([
        ("architectures", ["IJepaModel"]), ("hidden_act", "gelu"), ("hidden_size", DIM), ("image_size", IMG),
        ("intermediate_size", FFN), ("layer_norm_eps", 1e-6), ("model_type", "ijepa"),
        ("num_attention_heads", HEADS), ("num_channels", 3), ("num_hidden_layers", LAYERS),
        ("patch_size", PATCH), ("qkv_bias", True), ("torch_dtype", "float32")]))
    print("wrote", out)


if __name__ == "__main__":
    main()
