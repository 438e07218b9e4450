"""torchvision's ViT-B/16 with seeded random weights, for the onnxruntime-node comparison:
writes OUT/vit_b16_tokens.onnx (pixels [N,3,224,224] -> tokens [N,197,768] after the final LN, any batch N)
and OUT/vit_b16.safetensors (the same weights under torchvision's names).

    /usr/bin/python3 scripts/bench/export_vit_b16.py tmp/peers
"""
import json
import os
import struct
import sys

import numpy as np
import torch
import torchvision


class Tokens(torch.nn.Module):
    def __init__(self, vit):
        super().__init__()
        self.vit = vit

    def forward(self, x):
        x = self.vit._process_input(x)
        cls = self.vit.class_token.expand(x.shape[0], -1, -1)
        return self.vit.encoder(torch.cat([cls, x], dim=1))


def save_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = np.ascontiguousarray(t.detach().numpy().astype(np.float32)).tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for b in blobs:
            f.write(b)


def seeded_vit():
    """The benchmark's ViT-B/16: torchvision's initialisation from seed 0, biases and class token drawn too."""
    torch.manual_seed(0)
    vit = torchvision.models.vit_b_16().eval()
    with torch.no_grad():
        # torchvision zero-initialises the biases and the class token; give them values.
        for name, p in vit.named_parameters():
            if name.endswith("bias") or name == "class_token":
                p.normal_(0, 0.02)
    return vit


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    vit = seeded_vit()
    tokens = Tokens(vit).eval()
    x = torch.randn(1, 3, 224, 224)
    torch.onnx.export(tokens, x, os.path.join(out, "vit_b16_tokens.onnx"), opset_version=17,
                      input_names=["pixels"], output_names=["tokens"],
                      dynamic_axes={"pixels": {0: "batch"}, "tokens": {0: "batch"}})
    save_safetensors(os.path.join(out, "vit_b16.safetensors"),
                     {k: v for k, v in vit.state_dict().items() if not k.startswith("heads.")})
    print("wrote", out)


if __name__ == "__main__":
    main()
