#!/usr/bin/env python3
"""Tiny random-weight transformers checkpoints and transformers' own outputs on them, as parity fixtures.

    python scripts/gpu/hf_fixtures.py --out DIR

Writes four folders under DIR, each in the layout of fixtures/reference/<family> (manifest.json, input.npy,
last_hidden_state.npy, pooled.npy, plus the checkpoint folder written by transformers itself):

  tf_dinov2  Dinov2Model                          family hfvit, variant dinov2  (shapes of fixtures/reference/hfvit)
  tf_vit     ViTModel(add_pooling_layer=False)    family hfvit, variant vit     (same shapes, ViT block names)
  tf_ijepa   IJepaModel(add_pooling_layer=False)  family ijepa                  (shapes of fixtures/reference/ijepa)
  tf_vjepa2  VJEPA2Model, encoder output          family vjepa2                 (shapes of fixtures/reference/vjepa2)

Each model is built from a config (no download), float32, attn_implementation="eager", on the CPU, after
torch.manual_seed(0). Its parameters are then redrawn from a seeded torch.Generator at O(1) scale (the
transformers init of std 0.02 leaves blocks close to the identity, which would make a weak parity test):
Linear/Conv weights N(0,1)/sqrt(fan_in) with the query and key rows times 2 (peaked attention, as in trained
ViTs), biases N(0, 0.02^2), LayerNorm weight 1 + N(0, 0.1^2) and bias N(0, 0.05^2), layer-scale U(0.5, 1.5),
CLS/position tokens N(0, 0.5^2), mask tokens N(0, 0.02^2); the I-JEPA position table is then set to the fixed
2-D sincos table ([emb_w | emb_h]) real I-JEPA checkpoints store. The folder is written with
save_pretrained(safe_serialization=True); the golden outputs are the model's own float32 outputs on a seeded
numpy standard-normal input, and the folder is reloaded with from_pretrained and rerun as a self-check.
"""
import argparse
import json
import math
import os
import shutil
import sys

TOTAL_LIMIT_BYTES = 4 * 1000 * 1000
IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]
QK_GAIN = 2.0


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder (DIR/tf_dinov2, DIR/tf_vit, ... are replaced)")
    return ap.parse_args(argv)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=False)
        f.write("\n")


def folder_bytes(directory):
    total = 0
    for root, _, files in os.walk(directory):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


def fresh_dir(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
    return path


def main(argv=None):
    args = parse_args(argv)
    # No network on the target machine: keep huggingface_hub / transformers from trying.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    import numpy as np
    import torch
    from torch import nn
    import transformers

    # the fixtures' shared helpers (file_table), beside this folder
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
    import common
    from transformers import (Dinov2Config, Dinov2Model, IJepaConfig, IJepaModel, VJEPA2Config, VJEPA2Model,
                              ViTConfig, ViTModel)

    tf_version = transformers.__version__
    out_root = os.path.abspath(args.out)
    os.makedirs(out_root, exist_ok=True)
    torch.set_num_threads(min(4, os.cpu_count() or 1))
    generated_by = "python scripts/gpu/hf_fixtures.py --out %s" % args.out

    def reference_line(cls_name):
        return "transformers %s %s, eager attention, float32" % (tf_version, cls_name)

    # ------------------------------------------------------------------------------------------ helpers

    def redraw(model, seed):
        """Seeded O(1)-scale weights, independent of transformers' own init (see the module docstring)."""
        g = torch.Generator().manual_seed(seed)

        def normal(shape, std, mean=0.0):
            return torch.randn(shape, generator=g, dtype=torch.float32) * std + mean

        done = set()
        with torch.no_grad():
            for name, mod in model.named_modules():
                if isinstance(mod, nn.LayerNorm):
                    if mod.weight is not None:
                        mod.weight.copy_(normal(mod.weight.shape, 0.1, 1.0))
                        done.add(id(mod.weight))
                    if mod.bias is not None:
                        mod.bias.copy_(normal(mod.bias.shape, 0.05))
                        done.add(id(mod.bias))
                elif isinstance(mod, (nn.Linear, nn.Conv2d, nn.Conv3d)):
                    w = mod.weight
                    fan_in = w[0].numel()
                    value = normal(w.shape, 1.0 / math.sqrt(fan_in))
                    if isinstance(mod, nn.Linear) and name.rsplit(".", 1)[-1] in ("query", "key"):
                        value = value * QK_GAIN
                    w.copy_(value)
                    done.add(id(w))
                    if mod.bias is not None:
                        mod.bias.copy_(normal(mod.bias.shape, 0.02))
                        done.add(id(mod.bias))
            for name, p in model.named_parameters():
                if id(p) in done:
                    continue
                leaf = name.rsplit(".", 1)[-1]
                if leaf == "lambda1":  # Dinov2LayerScale
                    p.copy_(torch.rand(p.shape, generator=g, dtype=torch.float32) + 0.5)
                elif "mask_token" in name:
                    p.copy_(normal(p.shape, 0.02))
                else:  # cls_token, position_embeddings, register tokens
                    p.copy_(normal(p.shape, 0.5))
                done.add(id(p))

    def sincos_1d(width, positions):
        omega = np.arange(width // 2, dtype=np.float64) / (width / 2.0)
        omega = 1.0 / 10000 ** omega
        angles = np.asarray(positions, dtype=np.float64).reshape(-1)[:, None] * omega[None, :]
        return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)

    def sincos_2d(dim, grid):
        # meshgrid(w, h): the column index comes first -> [emb_w | emb_h] (I-JEPA / MAE helper)
        cols, rows = np.meshgrid(np.arange(grid, dtype=np.float64), np.arange(grid, dtype=np.float64))
        return np.concatenate([sincos_1d(dim // 2, cols), sincos_1d(dim // 2, rows)], axis=1)

    def seeded_input(seed, shape):
        return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)

    def save_f32(path, array):
        np.save(path, np.ascontiguousarray(np.asarray(array, dtype=np.float32)))

    def to_numpy(t):
        return t.detach().to(torch.float32).cpu().numpy()

    def max_abs(a, b):
        return float(np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))))

    def build(config_cls, model_cls, config_kwargs, init_kwargs):
        torch.manual_seed(0)
        config = config_cls(attn_implementation="eager", **config_kwargs)
        model = model_cls(config, **init_kwargs).to(torch.float32).eval()
        attn = getattr(model.config, "_attn_implementation", None)
        if attn != "eager":
            setter = getattr(model, "set_attn_implementation", None)
            if setter is not None:
                setter("eager")
            attn = getattr(model.config, "_attn_implementation", None)
        if attn != "eager":
            raise RuntimeError("%s: attention implementation is %r, not eager" % (model_cls.__name__, attn))
        return model

    def save_model(model, folder):
        try:
            model.save_pretrained(folder, safe_serialization=True)
        except TypeError:  # a transformers without the argument writes safetensors anyway
            model.save_pretrained(folder)
        if not os.path.isfile(os.path.join(folder, "model.safetensors")):
            raise RuntimeError("save_pretrained wrote no model.safetensors in %s: %s" % (folder, os.listdir(folder)))

    def safetensors_summary(folder):
        try:
            from safetensors import safe_open
        except Exception:  # noqa: BLE001
            return None
        dtypes, names = set(), []
        with safe_open(os.path.join(folder, "model.safetensors"), framework="pt") as f:
            for key in f.keys():
                names.append(key)
                dtypes.add(str(f.get_slice(key).get_dtype()))
        return {"tensors": len(names), "dtypes": sorted(dtypes)}

    def save_processor(folder, class_names, kwargs):
        """Writes the processor config when the class can be built and saved offline; else silently nothing."""
        for name in class_names:
            try:
                cls = getattr(transformers, name, None)
            except Exception:  # noqa: BLE001 - a backend the lazy import needs is missing
                cls = None
            if cls is None:
                continue
            attempts = [kwargs, {k: v for k, v in kwargs.items() if k != "resample"}]
            for kw in attempts:
                try:
                    cls(**kw).save_pretrained(folder)
                    return name
                except Exception:  # noqa: BLE001 - optional file
                    continue
        return None

    def reload_check(model_cls, folder, init_kwargs, run, want):
        try:
            again = model_cls.from_pretrained(folder, attn_implementation="eager", **init_kwargs)
            again = again.to(torch.float32).eval()
            with torch.no_grad():
                got = run(again)
            return max_abs(got, want)
        except Exception as e:  # noqa: BLE001 - recorded in the manifest
            return "failed: %s: %s" % (type(e).__name__, str(e)[:300])

    def checkpoint_files(folder):
        return sorted(n for n in os.listdir(folder) if os.path.isfile(os.path.join(folder, n)))

    def layout_text(cls_label, files):
        extras = [f for f in files if f not in ("config.json", "model.safetensors")]
        text = "HF transformers folder (%s, written by save_pretrained): config.json + model.safetensors (F32)" % (
            cls_label)
        for f in extras:
            text += " + %s" % f
        return text

    weights_text = ("seeded redraw after construction: Linear/Conv N(0,1)/sqrt(fan_in), query/key weights x%g, "
                    "biases N(0,0.02^2), LayerNorm 1+N(0,0.1^2) / N(0,0.05^2), layer-scale U(0.5,1.5), "
                    "CLS/position tokens N(0,0.5^2), mask tokens N(0,0.02^2)" % QK_GAIN)

    # ------------------------------------------------------------------------------------------ hfvit (2)

    def make_hfvit(name, variant, seed, input_seed):
        dim, n_layer, n_head, patch, config_grid, interp_grid = 48, 2, 2, 14, 4, 3
        is_dinov2 = variant == "dinov2"
        eps = 1e-6 if is_dinov2 else 1e-12  # Dinov2Config / ViTConfig defaults (the hub checkpoints' values)
        folder = fresh_dir(os.path.join(out_root, name))
        if is_dinov2:
            cls_name, model_cls, init_kwargs = "Dinov2Model", Dinov2Model, {}
            model = build(Dinov2Config, Dinov2Model, dict(
                hidden_size=dim, num_hidden_layers=n_layer, num_attention_heads=n_head, mlp_ratio=4,
                hidden_act="gelu", hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                layer_norm_eps=eps, image_size=config_grid * patch, patch_size=patch, num_channels=3,
                qkv_bias=True, layerscale_value=1.0, drop_path_rate=0.0, use_swiglu_ffn=False), init_kwargs)
            cls_label = "Dinov2Model"
        else:
            cls_name, model_cls, init_kwargs = "ViTModel", ViTModel, {"add_pooling_layer": False}
            model = build(ViTConfig, ViTModel, dict(
                hidden_size=dim, num_hidden_layers=n_layer, num_attention_heads=n_head,
                intermediate_size=4 * dim, hidden_act="gelu", hidden_dropout_prob=0.0,
                attention_probs_dropout_prob=0.0, layer_norm_eps=eps, image_size=config_grid * patch,
                patch_size=patch, num_channels=3, qkv_bias=True), init_kwargs)
            cls_label = "ViTModel, add_pooling_layer=False"
        redraw(model, seed)
        save_model(model, folder)
        if is_dinov2:
            crop = config_grid * patch
            processor = save_processor(folder, ["BitImageProcessor", "BitImageProcessorPil", "BitImageProcessorFast"],
                                       dict(do_resize=True, size={"shortest_edge": int(crop * 256 / 224)},
                                            resample=3, do_center_crop=True,
                                            crop_size={"height": crop, "width": crop}, do_rescale=True,
                                            rescale_factor=1 / 255, do_normalize=True, image_mean=IMAGENET_MEAN,
                                            image_std=IMAGENET_STD, do_convert_rgb=True))
        else:
            size = config_grid * patch
            processor = save_processor(folder, ["ViTImageProcessor", "ViTImageProcessorPil", "ViTImageProcessorFast"],
                                       dict(do_resize=True, size={"height": size, "width": size}, resample=2,
                                            do_rescale=True, rescale_factor=1 / 255, do_normalize=True,
                                            image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5]))
        files = checkpoint_files(folder)
        hp = {"embed_dim": dim, "n_layer": n_layer, "n_head": n_head, "head_dim": dim // n_head,
              "ffn_dim": 4 * dim, "patch": patch, "config_image_size": config_grid * patch, "n_register": 0,
              "eps": eps}
        cases, checks = {}, {}
        for tag, grid in (("", config_grid), ("_interp", interp_grid)):
            pixels = seeded_input(input_seed + grid, (1, 3, grid * patch, grid * patch))
            kwargs = {} if (is_dinov2 or not tag) else {"interpolate_pos_encoding": True}

            def run(m, pixels=pixels, kwargs=kwargs):
                return to_numpy(m(pixel_values=torch.from_numpy(pixels), **kwargs).last_hidden_state)

            with torch.no_grad():
                out = model(pixel_values=torch.from_numpy(pixels), **kwargs)
            hidden = to_numpy(out.last_hidden_state)
            pooled = hidden[:, 0]
            np.save(os.path.join(folder, "input%s.npy" % tag), np.ascontiguousarray(pixels))
            save_f32(os.path.join(folder, "last_hidden_state%s.npy" % tag), hidden)
            save_f32(os.path.join(folder, "pooled%s.npy" % tag), pooled)
            key = "native" if not tag else "interpolated"
            cases[key] = {
                "input": "input%s.npy" % tag, "input_shape": list(pixels.shape),
                "last_hidden_state": "last_hidden_state%s.npy" % tag, "last_hidden_state_shape": list(hidden.shape),
                "pooled": "pooled%s.npy" % tag, "pooled_shape": list(pooled.shape), "patch_grid": [grid, grid],
                "pos_table_resized": grid != config_grid,
                "hf_call": "model(pixel_values=input%s)" % (", interpolate_pos_encoding=True" if kwargs else "")}
            if is_dinov2 and getattr(out, "pooler_output", None) is not None:
                checks["pooler_output_vs_cls_row_max_abs%s" % (tag or "_native")] = max_abs(
                    to_numpy(out.pooler_output), pooled)
            checks["reload_max_abs%s" % (tag or "_native")] = reload_check(model_cls, folder, init_kwargs, run,
                                                                            hidden)
        summary = safetensors_summary(folder)
        if summary is not None:
            checks["safetensors"] = summary
        manifest = {
            "family": "hfvit",
            "variant": variant,
            "source_layout": layout_text(cls_label, files),
            "checkpoint": files,
            "hparams": hp,
            "input_layout": "NCHW float32, seeded standard normal (stands for an already preprocessed image)",
            "token_order": ["CLS", "patches row-major (h, then w)"],
            "input": cases["native"]["input"], "input_shape": cases["native"]["input_shape"],
            "last_hidden_state": cases["native"]["last_hidden_state"],
            "last_hidden_state_shape": cases["native"]["last_hidden_state_shape"],
            "pooled": cases["native"]["pooled"], "pooled_shape": cases["native"]["pooled_shape"],
            "pooling": ("CLS row of last_hidden_state (HF pooler_output = layernorm(x)[:, 0])" if is_dinov2 else
                        "CLS row of last_hidden_state (no ViTPooler: add_pooling_layer=False, as the engine pools "
                        "the CLS after the final norm)"),
            "cases": cases,
            "reference": reference_line(cls_name),
            "weights": weights_text,
            "preprocessor": processor or "not written (processor class could not be built/saved offline)",
            "self_checks": checks,
        }
        if not is_dinov2:
            manifest["position_interpolation"] = ("interpolated case: ViTModel(interpolate_pos_encoding=True), "
                                                  "transformers' own bicubic resize of the table in float32")
        else:
            manifest["position_interpolation"] = ("interpolated case: Dinov2Embeddings always interpolates; "
                                                  "transformers' own bicubic resize of the table in float32")
        return folder, manifest

    # ------------------------------------------------------------------------------------------ ijepa

    def make_ijepa(name, seed, input_seed):
        dim, n_layer, n_head, patch, img = 48, 2, 2, 14, 42
        grid = img // patch
        eps = 1e-6  # the hub I-JEPA configs (IJepaConfig's own default is 1e-12)
        folder = fresh_dir(os.path.join(out_root, name))
        init_kwargs = {"add_pooling_layer": False}
        model = build(IJepaConfig, IJepaModel, dict(
            hidden_size=dim, num_hidden_layers=n_layer, num_attention_heads=n_head, intermediate_size=4 * dim,
            hidden_act="gelu", hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, layer_norm_eps=eps,
            image_size=img, patch_size=patch, num_channels=3, qkv_bias=True), init_kwargs)
        redraw(model, seed)
        table = model.embeddings.position_embeddings
        with torch.no_grad():
            table.copy_(torch.from_numpy(sincos_2d(dim, grid).astype(np.float32)).reshape(table.shape))
        save_model(model, folder)
        processor = save_processor(folder, ["ViTImageProcessor", "ViTImageProcessorPil", "ViTImageProcessorFast"],
                                   dict(do_resize=True, size={"height": img, "width": img}, resample=2,
                                        do_rescale=True, rescale_factor=1 / 255, do_normalize=True,
                                        image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5]))
        files = checkpoint_files(folder)
        pixels = seeded_input(input_seed, (1, 3, img, img))

        def run(m):
            return to_numpy(m(pixel_values=torch.from_numpy(pixels)).last_hidden_state)

        with torch.no_grad():
            hidden = run(model)
        pooled = hidden.mean(1)
        np.save(os.path.join(folder, "input.npy"), np.ascontiguousarray(pixels))
        save_f32(os.path.join(folder, "last_hidden_state.npy"), hidden)
        save_f32(os.path.join(folder, "pooled.npy"), pooled)
        checks = {"reload_max_abs": reload_check(IJepaModel, folder, init_kwargs, run, hidden)}
        summary = safetensors_summary(folder)
        if summary is not None:
            checks["safetensors"] = summary
        return folder, {
            "family": "ijepa",
            "source_layout": layout_text("IJepaModel, add_pooling_layer=False", files),
            "checkpoint": files,
            "hparams": {"embed_dim": dim, "n_layer": n_layer, "n_head": n_head, "head_dim": dim // n_head,
                        "ffn_dim": 4 * dim, "patch": patch, "img_size": img, "eps": eps, "patch_grid": [grid, grid],
                        "pos": "sincos2d [emb_w | emb_h], stored as embeddings.position_embeddings"},
            "input": "input.npy", "input_shape": list(pixels.shape),
            "input_layout": "NCHW float32, seeded standard normal (stands for an already preprocessed image)",
            "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
            "pooled": "pooled.npy", "pooled_shape": list(pooled.shape),
            "token_order": "patches row-major (h, then w); no CLS",
            "pooling": "mean over all patch tokens after the final LayerNorm (IJepaForImageClassification)",
            "hf_call": "model(pixel_values=input)",
            "reference": reference_line("IJepaModel"),
            "weights": weights_text + "; then embeddings.position_embeddings = the 2-D sincos table",
            "preprocessor": processor or "not written (processor class could not be built/saved offline)",
            "self_checks": checks,
        }

    # ------------------------------------------------------------------------------------------ vjepa2

    def make_vjepa2(name, seed, input_seed):
        dim, n_layer, n_head, mlp_ratio, patch, tub, crop, frames = 160, 2, 2, 1.0, 16, 2, 48, 4
        head_dim = dim // n_head
        axis = 2 * ((head_dim // 3) // 2)
        pred = {"pred_hidden_size": 32, "pred_num_attention_heads": 2, "pred_num_hidden_layers": 1,
                "pred_num_mask_tokens": 2, "pred_mlp_ratio": 4.0, "pred_zero_init_mask_tokens": True}
        folder = fresh_dir(os.path.join(out_root, name))
        config_kwargs = dict(patch_size=patch, crop_size=crop, frames_per_clip=frames, tubelet_size=tub,
                             hidden_size=dim, in_chans=3, num_attention_heads=n_head, num_hidden_layers=n_layer,
                             drop_path_rate=0.0, mlp_ratio=mlp_ratio, layer_norm_eps=1e-6, qkv_bias=True,
                             attention_probs_dropout_prob=0.0, hidden_act="gelu", attention_dropout=0.0,
                             num_pooler_layers=3)
        config_kwargs.update(pred)
        model = build(VJEPA2Config, VJEPA2Model, config_kwargs, {})
        redraw(model, seed)
        save_model(model, folder)
        processor = save_processor(folder, ["VJEPA2VideoProcessor"],
                                   dict(do_resize=True, size={"shortest_edge": int(crop * 256 / 224)},
                                        resample=2, do_center_crop=True, crop_size={"height": crop, "width": crop},
                                        do_rescale=True, rescale_factor=1 / 255, do_normalize=True,
                                        image_mean=IMAGENET_MEAN, image_std=IMAGENET_STD))
        files = checkpoint_files(folder)
        clip = seeded_input(input_seed, (1, 3, frames, crop, crop))  # NCTHW, as fixtures/reference/vjepa2

        def hf_input():
            return torch.from_numpy(clip).permute(0, 2, 1, 3, 4).contiguous()  # -> B, T, C, H, W

        def run(m):
            return to_numpy(m(pixel_values_videos=hf_input(), skip_predictor=True).last_hidden_state)

        with torch.no_grad():
            hidden = run(model)
            try:
                encoder_only = to_numpy(model.encoder(pixel_values_videos=hf_input()).last_hidden_state)
                enc_check = max_abs(encoder_only, hidden)
            except Exception as e:  # noqa: BLE001
                enc_check = "failed: %s: %s" % (type(e).__name__, str(e)[:300])
        pooled = hidden.mean(1)
        np.save(os.path.join(folder, "input.npy"), np.ascontiguousarray(clip))
        save_f32(os.path.join(folder, "last_hidden_state.npy"), hidden)
        save_f32(os.path.join(folder, "pooled.npy"), pooled)
        checks = {"encoder_call_vs_skip_predictor_max_abs": enc_check,
                  "reload_max_abs": reload_check(VJEPA2Model, folder, {}, run, hidden)}
        summary = safetensors_summary(folder)
        if summary is not None:
            checks["safetensors"] = summary
        grid = [frames // tub, crop // patch, crop // patch]
        return folder, {
            "family": "vjepa2",
            "source_layout": layout_text("VJEPA2Model", files),
            "checkpoint": files,
            "checkpoint_includes": "encoder.* and a tiny predictor.* (pred_* in config.json); no pooler",
            "hparams": {"embed_dim": dim, "n_layer": n_layer, "n_head": n_head, "head_dim": head_dim,
                        "mlp_ratio": mlp_ratio, "ffn_dim": int(dim * mlp_ratio), "patch": patch, "tubelet": tub,
                        "img_size": crop, "frames": frames, "eps": 1e-6, "rope_layout": "tiled",
                        "rope_axis_dim": axis, "rope_theta": 10000.0, "patch_grid": grid, "predictor": pred},
            "input": "input.npy", "input_shape": list(clip.shape),
            "input_layout": "NCTHW float32, seeded standard normal (HF takes B,T,C,H,W: the golden was made with "
                            "input.transpose(0, 2, 1, 3, 4))",
            "last_hidden_state": "last_hidden_state.npy", "last_hidden_state_shape": list(hidden.shape),
            "pooled": "pooled.npy", "pooled_shape": list(pooled.shape),
            "token_order": "t-major (tubelet index), then h, then w; no CLS",
            "pooling": "mean of patch tokens (the encoder itself has no pooling)",
            "hf_call": "VJEPA2Model(pixel_values_videos=input.permute(0, 2, 1, 3, 4), skip_predictor=True)"
                       ".last_hidden_state (the encoder output)",
            "reference": reference_line("VJEPA2Model"),
            "weights": weights_text,
            "preprocessor": processor or "not written (processor class could not be built/saved offline)",
            "self_checks": checks,
        }

    # ------------------------------------------------------------------------------------------ run all

    makers = [
        ("tf_dinov2", lambda: make_hfvit("tf_dinov2", "dinov2", seed=6001, input_seed=6101)),
        ("tf_vit", lambda: make_hfvit("tf_vit", "vit", seed=6002, input_seed=6201)),
        ("tf_ijepa", lambda: make_ijepa("tf_ijepa", seed=6003, input_seed=6301)),
        ("tf_vjepa2", lambda: make_vjepa2("tf_vjepa2", seed=6004, input_seed=6401)),
    ]
    written, failed = [], []
    for name, make in makers:
        try:
            folder, manifest = make()
        except Exception as e:  # noqa: BLE001 - the others still get written
            import traceback
            traceback.print_exc()
            failed.append((name, "%s: %s" % (type(e).__name__, e)))
            log("[hf_fixtures] %s FAILED: %s: %s" % (name, type(e).__name__, e))
            continue
        manifest["generated_by"] = generated_by
        manifest["torch_version"] = torch.__version__
        manifest["transformers_version"] = tf_version
        manifest["numpy_version"] = np.__version__
        manifest["files"] = common.file_table(folder)
        write_json(os.path.join(folder, "manifest.json"), manifest)
        written.append((name, manifest))
        log("[hf_fixtures] %-10s %-7s %-14s lhs %s  checks %s" % (
            name, manifest["family"], manifest.get("variant", ""), manifest["last_hidden_state_shape"],
            json.dumps(manifest.get("self_checks", {}))))

    lines = [
        "# transformers parity fixtures",
        "",
        "Tiny random-weight checkpoints written by transformers itself (`save_pretrained`) and that library's own",
        "float32 outputs on them (eager attention, CPU). Made by `%s`" % generated_by,
        "with transformers %s, torch %s, numpy %s." % (tf_version, torch.__version__, np.__version__),
        "",
        "| folder | family | variant | transformers class | input | last_hidden_state |",
        "|---|---|---|---|---|---|",
    ]
    for name, m in written:
        lines.append("| `%s` | %s | %s | %s | %s | %s |" % (
            name, m["family"], m.get("variant", "-"), m["reference"].split(" ", 2)[2].split(",")[0],
            m["input_shape"], m["last_hidden_state_shape"]))
    for name, why in failed:
        lines.append("| `%s` | FAILED | | %s | | |" % (name, why.replace("|", "/")))
    lines += [
        "",
        "Each folder follows fixtures/reference/<family>: `manifest.json` (hparams, shapes, layouts, pooling, the",
        "file table), `input.npy`, `last_hidden_state.npy`, `pooled.npy` (hfvit: CLS row; ijepa, vjepa2: mean of",
        "the tokens), `_interp` variants for the hfvit folders, and the checkpoint (`config.json`,",
        "`model.safetensors`, a processor config where the processor class could be saved offline).",
        "Weights: %s." % weights_text,
        "",
    ]
    with open(os.path.join(out_root, "README.md"), "w") as f:
        f.write("\n".join(lines))

    total = 0
    print("folder sizes under %s:" % out_root)
    for name, _ in makers:
        path = os.path.join(out_root, name)
        if os.path.isdir(path):
            size = folder_bytes(path)
            total += size
            print("  %-10s %9.1f KiB" % (name, size / 1024))
    readme = os.path.getsize(os.path.join(out_root, "README.md"))
    total += readme
    print("  %-10s %9.1f KiB" % ("README.md", readme / 1024))
    print("  %-10s %9.1f KiB (%.2f MB, limit %.0f MB)" % ("total", total / 1024, total / 1e6,
                                                          TOTAL_LIMIT_BYTES / 1e6))
    if total > TOTAL_LIMIT_BYTES:
        log("[hf_fixtures] total %.2f MB is over the %.0f MB limit" % (total / 1e6, TOTAL_LIMIT_BYTES / 1e6))
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
