"""Optional cross-check: load the HF-layout fixtures with huggingface transformers and compare its float64
forward to the stored goldens. Not part of generation (Debian has no transformers); run it with any
interpreter that has torch + transformers, e.g. a throwaway venv:

    python -m venv /tmp/hfcheck && /tmp/hfcheck/bin/pip install torch transformers safetensors numpy
    /tmp/hfcheck/bin/python scripts/reference/crosscheck_hf.py

It proves the fixture folders (config keys, tensor names, safetensors bytes) load in the real classes and
that the independent reference agrees with the real modeling code. Families without a transformers port
(vjepa v1, vjepa2_1, levjepa) are not covered here.
"""
import json
import os
import sys

import numpy as np
import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "reference")


def load(folder, name):
    return np.load(os.path.join(ROOT, folder, name))


def report(label, got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    diff = float(np.max(np.abs(got - want)))
    scale = float(np.max(np.abs(want)))
    print(f"{label:45s} shape {list(got.shape)} max|diff| {diff:.3e} (max|ref| {scale:.2f})")
    return diff


def check_image_model(folder, cls, cases, pooled_from_cls):
    model = cls.from_pretrained(os.path.join(ROOT, folder), torch_dtype=torch.float64).eval()
    worst = 0.0
    for tag in cases:
        pixels = torch.from_numpy(load(folder, f"input{tag}.npy")).to(torch.float64)
        with torch.no_grad():
            out = model(pixel_values=pixels, **({"interpolate_pos_encoding": True} if tag else {}))
        worst = max(worst, report(f"{folder}{tag} last_hidden_state", out.last_hidden_state,
                                  load(folder, f"last_hidden_state{tag}.npy")))
        pooled = out.last_hidden_state[:, 0] if pooled_from_cls else out.last_hidden_state.mean(1)
        worst = max(worst, report(f"{folder}{tag} pooled", pooled, load(folder, f"pooled{tag}.npy")))
    return worst


def check_vjepa2():
    from transformers import VJEPA2Model
    model = VJEPA2Model.from_pretrained(os.path.join(ROOT, "vjepa2"), torch_dtype=torch.float64).eval()
    clip = torch.from_numpy(load("vjepa2", "input.npy")).to(torch.float64).permute(0, 2, 1, 3, 4)
    with torch.no_grad():
        out = model(pixel_values_videos=clip, skip_predictor=True)
    return report("vjepa2 last_hidden_state", out.last_hidden_state, load("vjepa2", "last_hidden_state.npy"))


def check_lewm_encoder():
    """The LeWM encoder keys minus 'encoder.' are a ViTModel checkpoint; from_pretrained applies the
    library's own key conversions, so it goes through a temporary HF folder."""
    import tempfile

    from safetensors.torch import save_file
    from transformers import ViTConfig, ViTModel
    cfg = json.load(open(os.path.join(ROOT, "lewm", "config.json")))["encoder"]
    config = ViTConfig(hidden_size=cfg["hidden_size"], num_hidden_layers=cfg["num_hidden_layers"],
                       num_attention_heads=cfg["num_attention_heads"], intermediate_size=cfg["intermediate_size"],
                       image_size=cfg["image_size"], patch_size=cfg["patch_size"])
    state = torch.load(os.path.join(ROOT, "lewm", "weights.pt"), map_location="cpu")
    encoder = {k[len("encoder."):]: v.contiguous() for k, v in state.items() if k.startswith("encoder.")}
    with tempfile.TemporaryDirectory() as folder:
        config.save_pretrained(folder)
        save_file(encoder, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
        model = ViTModel.from_pretrained(folder, add_pooling_layer=False, torch_dtype=torch.float64).eval()
    pixels = torch.from_numpy(load("lewm", "input.npy")).to(torch.float64)
    with torch.no_grad():
        out = model(pixel_values=pixels)
    return report("lewm encoder last_hidden_state", out.last_hidden_state, load("lewm", "last_hidden_state.npy"))


def main():
    from transformers import Dinov2Model, Dinov2WithRegistersModel, IJepaModel
    worst = max(
        check_image_model("hfvit", Dinov2Model, ["", "_interp"], True),
        check_image_model("hfvit_reg", Dinov2WithRegistersModel, ["", "_interp"], True),
        check_image_model("ijepa", IJepaModel, [""], False),
        check_vjepa2(),
        check_lewm_encoder(),
    )
    print(f"worst max|diff| {worst:.3e}")
    # Goldens are float32; HF resizes position tables in float32, hence the 1e-5 allowance.
    return 0 if worst < 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())
