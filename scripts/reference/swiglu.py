"""The DINOv2 SwiGLU MLP in float64, written from transformers' Dinov2SwiGLUFFN semantics:
x1, x2 = weights_in(h).chunk(2, dim=-1); weights_out(silu(x1) * x2), with the gated width
int(int(D * mlp_ratio) * 2 / 3) rounded up to a multiple of 8.
"""
import torch

from common import F64, f64, linear


def gated_width(dim, mlp_ratio):
    hidden = int(dim * mlp_ratio)
    return (int(hidden * 2 / 3) + 7) // 8 * 8


def silu(x):
    return x / (1.0 + torch.exp(-x))


def swiglu(h, w12, b12, w3, b3, swapped=False):
    """h [..., D] -> [..., D]; swapped gates the second half instead (the negative control)."""
    x12 = linear(h, w12, b12)
    x1, x2 = x12.chunk(2, dim=-1)
    gate, up = (x2, x1) if swapped else (x1, x2)
    return linear(silu(gate) * up, w3, b3)


class SwiGLUModule(torch.nn.Module):
    """A float64 stand-in for torchvision's MLPBlock; `out_scale` folds a layer-scale into weights_out."""

    def __init__(self, w12, b12, w3, b3, out_scale=None, swapped=False):
        super().__init__()
        scale = torch.ones(w3.shape[0], dtype=F64) if out_scale is None else f64(out_scale)
        self.w12, self.b12 = f64(w12), f64(b12)
        self.w3, self.b3 = scale[:, None] * f64(w3), scale * f64(b3)
        self.swapped = swapped

    def forward(self, h):
        return swiglu(h, self.w12, self.b12, self.w3, self.b3, self.swapped)
