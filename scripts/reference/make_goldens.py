#!/usr/bin/python3
"""Write the float64 reference goldens under fixtures/reference/.

    /usr/bin/python3 scripts/reference/make_goldens.py [--family F ...]

Deterministic: fixed seeds, so a rerun rewrites identical bytes.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep scripts/reference free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402
import fam_dinov2_hub  # noqa: E402
import fam_dinov3  # noqa: E402
import fam_dinotxt  # noqa: E402
import fam_hfvit  # noqa: E402
import fam_hfvit_variants  # noqa: E402
import fam_ijepa  # noqa: E402
import fam_lejepa  # noqa: E402
import fam_levjepa  # noqa: E402
import fam_lewm  # noqa: E402
import fam_pretrain_pred  # noqa: E402
import fam_vjepa  # noqa: E402
import fam_vjepa2  # noqa: E402
import fam_vjepa2_1  # noqa: E402
import fam_vjepa2_1_hier  # noqa: E402
import fam_video_cls  # noqa: E402
import vectors  # noqa: E402

# fixture folder -> generator; the folder name starts with the family name.
GENERATORS = {
    # dino.txt's vision head and text tower over the dinov3_meta backbone (generated after it: it reads its .pth)
    "dinotxt": fam_dinotxt.generate,
    "hfvit": lambda: fam_hfvit.generate("hfvit", seed=1001, dim=48, n_head=2, n_layer=2, patch=14,
                                        config_grid=4, interp_grid=3, n_register=0),
    "hfvit_reg": lambda: fam_hfvit.generate("hfvit_reg", seed=1002, dim=32, n_head=2, n_layer=2, patch=14,
                                            config_grid=3, interp_grid=4, n_register=4),
    # D 64 x mlp_ratio 4 = 256 -> int(170.67) = 170 -> rounded up to 176: the SwiGLU width's rounding acts
    "hfvit_swiglu": lambda: fam_hfvit_variants.generate("hfvit_swiglu", seed=1003, dim=64, n_head=2, n_layer=2,
                                                        patch=14, config_grid=4, interp_grid=3, mlp_ratio=4,
                                                        swiglu_ffn=True, qkv_bias=True),
    "hfvit_nobias": lambda: fam_hfvit_variants.generate("hfvit_nobias", seed=1004, dim=64, n_head=2, n_layer=2,
                                                        patch=14, config_grid=3, interp_grid=4, mlp_ratio=4,
                                                        swiglu_ffn=False, qkv_bias=False),
    "hfvit_lejepa": fam_lejepa.generate,
    # torch.hub files: offset 0.1 without registers (a 3x4 input: rows and columns resized apart), antialias with
    "hfvit_hub": lambda: fam_dinov2_hub.generate("hfvit_hub", seed=1011, dim=48, n_head=3, n_layer=2, patch=14,
                                                 table_grid=5, interp_grid=(3, 4), n_register=0, swiglu_ffn=False),
    "hfvit_hub_reg": lambda: fam_dinov2_hub.generate("hfvit_hub_reg", seed=1012, dim=32, n_head=2, n_layer=2,
                                                     patch=14, table_grid=4, interp_grid=(6, 6), n_register=4,
                                                     swiglu_ffn=False),
    "hfvit_hub_g": lambda: fam_dinov2_hub.generate("hfvit_hub_g", seed=1013, dim=64, n_head=2, n_layer=2, patch=14,
                                                   table_grid=4, interp_grid=(3, 3), n_register=0, swiglu_ffn=True),
    # DINOv3: patch 16, 4 registers, 2-D RoPE; native 4x4 and wide 3x5 patch grids. D 32 (head width 16):
    # small, since every fixture travels to the GPU machine within its 64 MiB
    "dinov3_hf": lambda: fam_dinov3.generate_hf("dinov3_hf", seed=1021, dim=32, n_head=2, n_layer=2, hidden=128,
                                                gated=False),
    "dinov3_hf_gated": lambda: fam_dinov3.generate_hf("dinov3_hf_gated", seed=1022, dim=32, n_head=2, n_layer=2,
                                                      hidden=80, gated=True),
    "dinov3_meta": lambda: fam_dinov3.generate_meta("dinov3_meta", seed=1023, dim=32, n_head=2, n_layer=2, ffn="mlp",
                                                    ffn_ratio=4, align_to=None, qkv_bias=True, local_cls_norm=True,
                                                    pth="dinov3_vittiny16_pretrain_seeded.pth"),
    # as the 7B: swiglu64 (int(int(48 * 3) * 2 / 3) = 96 -> 128), no qkv bias
    "dinov3_meta_swiglu": lambda: fam_dinov3.generate_meta("dinov3_meta_swiglu", seed=1024, dim=48, n_head=2,
                                                           n_layer=2, ffn="swiglu", ffn_ratio=3, align_to=64,
                                                           qkv_bias=False, local_cls_norm=False,
                                                           pth="dinov3_vittiny16_pretrain_swiglu.pth"),
    "ijepa": fam_ijepa.generate,
    "vjepa": fam_vjepa.generate,
    "ijepa_pred": lambda: fam_pretrain_pred.generate("ijepa_pred"),
    "vjepa_pred": lambda: fam_pretrain_pred.generate("vjepa_pred"),
    "vjepa2": fam_vjepa2.generate,
    "vjepa2_1": fam_vjepa2_1.generate,
    "vjepa2_1_hier": fam_vjepa2_1_hier.generate,
    "levjepa": fam_levjepa.generate,
    "lewm": fam_lewm.generate,
    "videomae": fam_video_cls.generate_videomae,
    "vivit": fam_video_cls.generate_vivit,
    "rope": vectors.generate_rope,
    "mask": vectors.generate_mask,
}


# One-off checks made when these fixtures were written (2026-11-29); crosscheck_hf.py reruns the first kind.
CROSSCHECKS = {
    "hfvit": "crosscheck_hf.py: transformers 5.18 Dinov2Model.from_pretrained(this folder), float64: max|diff| "
             "1.2e-7 native, 1.3e-6 interpolated (HF resizes the table in float32)",
    "hfvit_reg": "crosscheck_hf.py: transformers 5.18 Dinov2WithRegistersModel, float64: max|diff| 1.3e-7",
    "ijepa": "crosscheck_hf.py: transformers 5.18 IJepaModel, float64: max|diff| 1.1e-7; the sincos table equals "
             "facebookresearch/ijepa get_2d_sincos_pos_embed exactly",
    "vjepa": "3-D sincos table equals facebookresearch/jepa get_3d_sincos_pos_embed(uniform_power=True) exactly",
    "vjepa2": "crosscheck_hf.py: transformers 5.18 VJEPA2Model (skip_predictor=True), float64: max|diff| 1.2e-7",
    "vjepa2_1": "a literal transcription of app/vjepa_2_1 RoPEAttention/Block/forward (not committed) on this .pt: "
                "max|diff| 1.2e-7 (video, image, and the tiled control)",
    "levjepa": "a transcription of LibreYOLO's independent LeVJEPA port (not committed) on this folder: max|diff| "
               "1.2e-7 masked and unmasked",
    "lewm": "crosscheck_hf.py: transformers 5.18 ViTModel on the encoder.* keys, float64: max|diff| 1.1e-7",
    **{f: "a one-off check (2026-12-06, not committed): fam_dinov3's Meta and HF float64 transcriptions, the weights "
          "mapped across layouts (q/k/v split from the fused qkv, the key bias masked), agree to <= 3.6e-15 on both "
          "cases and the RoPE controls of all four folders; no transformers here to run DINOv3ViTModel itself"
       for f in ("dinov3_hf", "dinov3_hf_gated", "dinov3_meta", "dinov3_meta_swiglu")},
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", action="append", choices=sorted(GENERATORS),
                    help="generate only this fixture folder (repeatable); default: all")
    args = ap.parse_args()
    torch.set_num_threads(2)
    for name in args.family or list(GENERATORS):
        manifest = GENERATORS[name]()
        out_dir = os.path.join(common.FIXTURE_ROOT, name)
        manifest["generated_by"] = f"/usr/bin/python3 scripts/reference/make_goldens.py --family {name}"
        manifest["torch_version"] = torch.__version__
        if name in CROSSCHECKS:
            manifest["crosscheck"] = CROSSCHECKS[name]
        common.write_json(os.path.join(out_dir, "manifest.json"), manifest)
        manifest["files"] = common.file_table(out_dir)
        common.write_json(os.path.join(out_dir, "manifest.json"), manifest)
        total = sum(manifest["files"].values())
        print(f"{name:10s} {total / 1024:8.1f} KiB  {manifest.get('self_checks', '')} "
              f"{manifest.get('negative_controls', '')}")


if __name__ == "__main__":
    main()
