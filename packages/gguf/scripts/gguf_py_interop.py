"""Interop fixtures against llama.cpp's own gguf-py (the pinned checkout, commit 80fb11a).

Run by `pnpm fixtures:gguf` after gen-fixtures.js, as
    PYTHONPATH=tmp/llama.cpp/gguf-py /usr/bin/python3 packages/gguf/scripts/gguf_py_interop.py fixtures/gguf
It writes, under fixtures/gguf/py/:
  read-by-gguf-py.json        what gguf-py's GGUFReader sees in every file of fixtures/gguf/ts/
  gguf-py-all-types.gguf/.json a file written by gguf-py's GGUFWriter (every metadata and tensor type) and what it holds
  rewritten-forge-vjepa2_1.gguf  one forged jepa model re-written by GGUFWriter from what GGUFReader read; every
                              forged model is re-written that way and the sha256 of each rewrite is recorded
                              (the suite checks it equals the TypeScript-written file's)
The TypeScript suite compares all of these; it never runs Python.
"""
import hashlib
import json
import os
import sys
import tempfile

import numpy as np
from gguf import GGUFReader, GGUFWriter, GGUFValueType, GGMLQuantizationType, GGML_QUANT_SIZES

TYPE_NAMES = {
    GGUFValueType.UINT8: "u8", GGUFValueType.INT8: "i8", GGUFValueType.UINT16: "u16", GGUFValueType.INT16: "i16",
    GGUFValueType.UINT32: "u32", GGUFValueType.INT32: "i32", GGUFValueType.FLOAT32: "f32", GGUFValueType.BOOL: "bool",
    GGUFValueType.STRING: "string", GGUFValueType.ARRAY: "array", GGUFValueType.UINT64: "u64",
    GGUFValueType.INT64: "i64", GGUFValueType.FLOAT64: "f64",
}


def sha256(b):
    return hashlib.sha256(bytes(b)).hexdigest()


def plain(v):
    """JSON-safe: 64-bit integers as strings (exactness in JavaScript), floats as repr-exact numbers."""
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return str(v) if abs(v) > 2**53 else v
    return v


def describe(path):
    r = GGUFReader(path)
    fields = {}
    for name, f in r.fields.items():
        if name.startswith("GGUF."):
            continue
        fields[name] = {"types": [TYPE_NAMES[t] for t in f.types], "value": plain(f.contents())}
    tensors = [
        {
            "name": t.name,
            "type": int(t.tensor_type),
            "shape": [int(x) for x in t.shape],
            "offset": int(t.data_offset),
            "nbytes": int(t.n_bytes),
            "sha256": sha256(np.ascontiguousarray(t.data).view(np.uint8).tobytes()),
        }
        for t in r.tensors
    ]
    return r, {"alignment": int(r.alignment), "dataOffset": int(r.data_offset), "fields": fields, "tensors": tensors}


def rewrite(reader, out_path):
    """Re-emits every key (with its stored types) and tensor of `reader` through GGUFWriter."""
    arch = reader.fields["general.architecture"].contents()
    w = GGUFWriter(out_path, arch)
    for name, f in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue
        main = f.types[0]
        sub = f.types[-1] if main == GGUFValueType.ARRAY else None
        w.add_key_value(name, f.contents(), main, sub_type=sub)
    for t in reader.tensors:
        if t.tensor_type in (GGMLQuantizationType.F32, GGMLQuantizationType.F16):
            w.add_tensor(t.name, np.array(t.data))
        else:
            w.add_tensor(t.name, np.array(t.data).view(np.uint8), raw_dtype=t.tensor_type)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_all_types(out_path):
    w = GGUFWriter(out_path, "pywriter")
    kv = [
        ("py.u8", 250, GGUFValueType.UINT8), ("py.i8", -120, GGUFValueType.INT8),
        ("py.u16", 65000, GGUFValueType.UINT16), ("py.i16", -32000, GGUFValueType.INT16),
        ("py.u32", 4294967295, GGUFValueType.UINT32), ("py.i32", -2147483648, GGUFValueType.INT32),
        ("py.f32", 0.15625, GGUFValueType.FLOAT32), ("py.bool", False, GGUFValueType.BOOL),
        ("py.string", "gguf-py ✓", GGUFValueType.STRING), ("py.u64", 2**64 - 1, GGUFValueType.UINT64),
        ("py.i64", -(2**63), GGUFValueType.INT64), ("py.f64", 2.718281828459045, GGUFValueType.FLOAT64),
    ]
    expected = {"general.architecture": {"type": "string", "value": "pywriter"}}
    for key, val, t in kv:
        w.add_key_value(key, val, t)
        expected[key] = {"type": TYPE_NAMES[t], "value": plain(val)}
    arrays = [
        ("py.arr.u8", [1, 2, 3], GGUFValueType.UINT8), ("py.arr.i8", [-1, 1], GGUFValueType.INT8),
        ("py.arr.u16", [1, 65535], GGUFValueType.UINT16), ("py.arr.i16", [-2, 2], GGUFValueType.INT16),
        ("py.arr.u32", [10, 20], GGUFValueType.UINT32), ("py.arr.i32", [-10, 20], GGUFValueType.INT32),
        ("py.arr.f32", [0.5, -0.25], GGUFValueType.FLOAT32), ("py.arr.bool", [True, False], GGUFValueType.BOOL),
        ("py.arr.string", ["x", "yz"], GGUFValueType.STRING), ("py.arr.u64", [2**63], GGUFValueType.UINT64),
        ("py.arr.i64", [-(2**62)], GGUFValueType.INT64), ("py.arr.f64", [1.5, 1e-10], GGUFValueType.FLOAT64),
    ]
    for key, val, t in arrays:
        w.add_key_value(key, val, GGUFValueType.ARRAY, sub_type=t)
        expected[key] = {"type": "array:" + TYPE_NAMES[t], "value": plain(val)}
    w.add_key_value("py.arr.nested", [[1, 2], [3]], GGUFValueType.ARRAY, sub_type=GGUFValueType.ARRAY)
    expected["py.arr.nested"] = {"type": "array:array", "value": [[1, 2], [3]]}

    rng = np.random.default_rng(7)
    tensors = []
    native = [("n.f32", np.float32), ("n.f16", np.float16), ("n.i8", np.int8), ("n.i16", np.int16),
              ("n.i32", np.int32), ("n.i64", np.int64), ("n.f64", np.float64)]
    for name, dt in native:
        a = (rng.standard_normal((3, 64)) * 100).astype(dt)
        w.add_tensor(name, a)
        tensors.append((name, a.view(np.uint8).tobytes()))
    for qt in GGML_QUANT_SIZES:
        # gguf-py at this commit still sizes a Q8_1 block as 40 bytes; ggml's block_q8_1 is 36.
        if qt == GGMLQuantizationType.Q8_1:
            continue
        if qt in (GGMLQuantizationType.F32, GGMLQuantizationType.F16, GGMLQuantizationType.I8,
                  GGMLQuantizationType.I16, GGMLQuantizationType.I32, GGMLQuantizationType.I64, GGMLQuantizationType.F64):
            continue
        block, size = GGML_QUANT_SIZES[qt]
        raw = rng.integers(0, 256, size=(2, (256 // block) * size), dtype=np.uint8)
        name = "q." + qt.name.lower()
        w.add_tensor(name, raw, raw_dtype=qt)
        tensors.append((name, raw.tobytes()))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return {
        "metadata": expected,
        "tensors": [{"name": n, "sha256": sha256(b), "nbytes": len(b)} for n, b in tensors],
        "quantSizes": {qt.name.lower(): list(GGML_QUANT_SIZES[qt]) for qt in GGML_QUANT_SIZES},
        "quantIds": {qt.name.lower(): int(qt) for qt in GGML_QUANT_SIZES},
    }


def main():
    root = sys.argv[1]
    ts_dir, py_dir = os.path.join(root, "ts"), os.path.join(root, "py")
    os.makedirs(py_dir, exist_ok=True)
    seen = {}
    tmp = tempfile.mkdtemp()
    for name in sorted(os.listdir(ts_dir)):
        if not name.endswith(".gguf"):
            continue
        reader, desc = describe(os.path.join(ts_dir, name))
        seen[name] = desc
        if name.startswith("forge-"):
            keep = name == "forge-vjepa2_1.gguf"
            out = os.path.join(py_dir if keep else tmp, "rewritten-" + name)
            rewrite(reader, out)
            with open(out, "rb") as f:
                desc["rewrittenSha256"] = sha256(f.read())
    with open(os.path.join(py_dir, "read-by-gguf-py.json"), "w") as f:
        json.dump(seen, f, indent=1, ensure_ascii=False)
        f.write("\n")
    expected = write_all_types(os.path.join(py_dir, "gguf-py-all-types.gguf"))
    with open(os.path.join(py_dir, "gguf-py-all-types.json"), "w") as f:
        json.dump(expected, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("gguf-py read %d files and wrote %s" % (len(seen), py_dir))


if __name__ == "__main__":
    main()
