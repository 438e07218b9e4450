"""The seeded torchvision ViT-B/16 of export_vit_b16.py (the same weights: seed 0, the same bias and
class-token initialisation) as a transformers.js model folder, for the jepa-bench pipeline peer:

    DIR/config.json                 model_type "vit" (transformers.js builds a ViTModel)
    DIR/preprocessor_config.json    a ViTImageProcessor with the recipe's resize / crop / normalise
    DIR/onnx/model.onnx             pixel_values [batch,3,224,224] -> last_hidden_state [batch,197,768]
                                    (after the final LayerNorm), batch dynamic
    DIR/onnx/model_quantized.onnx   the same with int8 dynamic quantization of every linear layer's
                                    weight, as onnxruntime's quantize_dynamic writes it (per-tensor
                                    symmetric int8 weights; DynamicQuantizeLinear on the activation ->
                                    MatMulInteger -> Cast -> Mul by the product of the scales); the
                                    patch-embedding Conv stays fp32 (no ConvInteger)

    /usr/bin/python3 scripts/bench/export_vit_b16_hf_onnx.py DIR [--recipe JSON] [--preprocessor-only]
                                                              [--compare vit_b16.safetensors]

--recipe takes the engine's recipe shape (mode shortest_edge|squash, resizeShort|squashSize, cropSize,
resample bilinear|bicubic, mean, std, rescaleFactor); the default is torchvision's own ViT-B/16
recipe (shortest edge 256, bilinear, centre crop 224, ImageNet mean / std). --preprocessor-only
rewrites preprocessor_config.json alone. --compare checks the weights against a safetensors file
that export_vit_b16.py wrote. Needs Debian's /usr/bin/python3 with python3-torch, python3-torchvision
and python3-onnx.
"""
import argparse
import json
import os
import struct
import sys

import numpy as np

DEFAULT_RECIPE = {
    "mode": "shortest_edge", "resizeShort": 256, "cropSize": 224, "resample": "bilinear",
    "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225], "rescaleFactor": 1 / 255,
    "cropRounding": "torchvision",
}
PIL_RESAMPLE = {"bilinear": 2, "bicubic": 3}  # the numbers HF and transformers.js configs use


def vit_config():
    return {
        "model_type": "vit",
        "architectures": ["ViTModel"],
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "layer_norm_eps": 1e-6,
        "image_size": 224,
        "patch_size": 16,
        "num_channels": 3,
        "qkv_bias": True,
        "initializer_range": 0.02,
        "_name_or_path": "torchvision vit_b_16, seeded random weights (jepa-bench pipeline peer)",
    }


def preprocessor_config(recipe):
    if recipe:  # the caller's recipe; only what it leaves out of normalisation is filled in
        r = {"cropRounding": "hf", "mean": DEFAULT_RECIPE["mean"], "std": DEFAULT_RECIPE["std"],
             "rescaleFactor": DEFAULT_RECIPE["rescaleFactor"], **recipe}
    else:
        r = dict(DEFAULT_RECIPE)
    if r["mode"] == "shortest_edge":
        size = {"shortest_edge": int(r["resizeShort"])}
    elif r["mode"] == "squash":
        size = {"height": int(r["squashSize"]), "width": int(r["squashSize"])}
    else:
        raise ValueError(f"unknown recipe mode {r['mode']!r}")
    cfg = {
        "image_processor_type": "ViTImageProcessor",
        "feature_extractor_type": "ViTFeatureExtractor",
        "do_convert_rgb": True,
        "do_resize": True,
        "size": size,
        "resample": PIL_RESAMPLE[r["resample"]],
        "do_center_crop": bool(r.get("cropSize")),
        "do_rescale": True,
        "rescale_factor": float(r["rescaleFactor"]),
        "do_normalize": True,
        "image_mean": [float(x) for x in r["mean"]],
        "image_std": [float(x) for x in r["std"]],
        "jepa_recipe": r,
    }
    if r.get("cropSize"):
        cfg["crop_size"] = {"height": int(r["cropSize"]), "width": int(r["cropSize"])}
    return cfg


def seeded_vit():
    """export_vit_b16.py's weights, from its own code."""
    from export_vit_b16 import seeded_vit as seeded

    return seeded()


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        base = 8 + n
        out = {}
        for name, info in header.items():
            if name == "__metadata__":
                continue
            a, b = info["data_offsets"]
            f.seek(base + a)
            out[name] = np.frombuffer(f.read(b - a), dtype=np.float32).reshape(info["shape"])
        return out


def export_fp32(vit, path):
    import torch

    from export_vit_b16 import Tokens  # the same forward: patches, CLS, encoder, final LayerNorm

    model = Tokens(vit).eval()
    x = torch.randn(2, 3, 224, 224)
    torch.onnx.export(model, x, path, opset_version=17, input_names=["pixel_values"],
                      output_names=["last_hidden_state"],
                      dynamic_axes={"pixel_values": {0: "batch_size"}, "last_hidden_state": {0: "batch_size"}})


def quantize_dynamic_int8(src, dst):
    """onnxruntime's quantize_dynamic (IntegerOps, per-tensor, int8 weights, uint8 activations) for every
    MatMul / Gemm whose weight is an initializer. Returns how many weights it quantized."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(src)
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    consumers = {}
    for node in g.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    new_nodes, new_inits, dq_of, removed, count = [], [], {}, set(), 0

    def quantized_input(name):
        """One DynamicQuantizeLinear per activation, however many MatMuls read it."""
        if name not in dq_of:
            base = name.replace("/", "_").replace(":", "_").strip("_") or "x"
            q, s, z = f"{base}_quantized", f"{base}_scale", f"{base}_zero_point"
            new_nodes.append(helper.make_node("DynamicQuantizeLinear", [name], [q, s, z], name=f"{base}_QuantizeLinear"))
            dq_of[name] = (q, s, z)
        return dq_of[name]

    def quantized_weight(w, tag):
        absmax = float(np.abs(w).max())
        scale = np.float32(absmax / 127.0 if absmax > 0 else 1.0)
        wq = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        names = (f"{tag}_quantized", f"{tag}_scale", f"{tag}_zero_point")
        new_inits.append(numpy_helper.from_array(wq, names[0]))
        new_inits.append(numpy_helper.from_array(np.array(scale, dtype=np.float32), names[1]))
        new_inits.append(numpy_helper.from_array(np.array(0, dtype=np.int8), names[2]))
        return names

    for node in g.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        weight = node.input[1] if len(node.input) > 1 else None
        quantizable = (
            node.op_type in ("MatMul", "Gemm") and weight in inits and len(inits[weight].dims) == 2
            and (node.op_type == "MatMul" or (attrs.get("transA", 0) == 0 and attrs.get("alpha", 1.0) == 1.0
                                              and attrs.get("beta", 1.0) == 1.0))
        )
        if not quantizable:
            new_nodes.append(node)
            continue
        w = numpy_helper.to_array(inits[weight]).astype(np.float32)
        if node.op_type == "Gemm" and attrs.get("transB", 0):
            w = np.ascontiguousarray(w.T)
        tag = (node.name or weight).replace("/", "_").strip("_")
        xq, xs, xz = quantized_input(node.input[0])
        wq, ws, wz = quantized_weight(w, tag + "_W")
        out = node.output[0]
        mm = out + "_matmul_integer" if node.op_type == "MatMul" else out + "_gemm_integer"
        new_nodes.append(helper.make_node("MatMulInteger", [xq, wq, xz, wz], [mm + "_i32"], name=tag + "_MatMulInteger"))
        new_nodes.append(helper.make_node("Cast", [mm + "_i32"], [mm + "_f32"], to=TensorProto.FLOAT, name=tag + "_Cast"))
        new_nodes.append(helper.make_node("Mul", [xs, ws], [tag + "_scales_mul"], name=tag + "_scales_mul"))
        if node.op_type == "Gemm" and len(node.input) > 2 and node.input[2]:
            new_nodes.append(helper.make_node("Mul", [mm + "_f32", tag + "_scales_mul"], [mm + "_scaled"], name=tag + "_output_scale_mul"))
            new_nodes.append(helper.make_node("Add", [mm + "_scaled", node.input[2]], [out], name=tag + "_bias_add"))
        else:
            new_nodes.append(helper.make_node("Mul", [mm + "_f32", tag + "_scales_mul"], [out], name=tag + "_output_scale_mul"))
        if all(c.op_type in ("MatMul", "Gemm") for c in consumers.get(weight, [])):
            removed.add(weight)
        count += 1

    keep = [t for t in g.initializer if t.name not in removed]
    del g.initializer[:]
    g.initializer.extend(keep + new_inits)
    del g.node[:]
    g.node.extend(new_nodes)
    # DynamicQuantizeLinear and MatMulInteger are default-domain ops from opset 10 on; ORT's output
    # uses the com.microsoft domain for nothing here
    onnx.checker.check_model(model)
    onnx.save(model, dst)
    return count


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--recipe", default=None)
    ap.add_argument("--preprocessor-only", action="store_true")
    ap.add_argument("--compare", default=None)
    a = ap.parse_args()
    recipe = json.loads(a.recipe) if a.recipe else {}
    os.makedirs(os.path.join(a.dir, "onnx"), exist_ok=True)
    with open(os.path.join(a.dir, "preprocessor_config.json"), "w") as f:
        json.dump(preprocessor_config(recipe), f, indent=2)
    if a.preprocessor_only:
        print("wrote", os.path.join(a.dir, "preprocessor_config.json"))
        return

    vit = seeded_vit()
    if a.compare:
        ref = read_safetensors(a.compare)
        mine = {k: v.detach().numpy() for k, v in vit.state_dict().items() if not k.startswith("heads.")}
        if set(ref) != set(mine):
            sys.exit(f"--compare: tensor names differ: {sorted(set(ref) ^ set(mine))[:5]}")
        worst = max(float(np.abs(ref[k] - mine[k]).max()) for k in ref)
        if worst != 0.0:
            sys.exit(f"--compare: weights differ from {a.compare} (max abs diff {worst})")
        print(f"weights identical to {a.compare} ({len(ref)} tensors)")

    fp32 = os.path.join(a.dir, "onnx", "model.onnx")
    q8 = os.path.join(a.dir, "onnx", "model_quantized.onnx")
    export_fp32(vit, fp32)
    n = quantize_dynamic_int8(fp32, q8)
    with open(os.path.join(a.dir, "config.json"), "w") as f:
        json.dump(vit_config(), f, indent=2)
    print(f"wrote {a.dir}: config.json, preprocessor_config.json, onnx/model.onnx "
          f"({os.path.getsize(fp32) / 1e6:.0f} MB), onnx/model_quantized.onnx ({os.path.getsize(q8) / 1e6:.0f} MB, "
          f"{n} weights int8)")


if __name__ == "__main__":
    main()
