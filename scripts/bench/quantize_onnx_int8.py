#!/usr/bin/python3
"""Write the int8 ONNX file transformers.js ships for a model, from its fp32 export, without onnxruntime.

    /usr/bin/python3 scripts/bench/quantize_onnx_int8.py tmp/peers/vit_b16_tokens.onnx tmp/peers/vit_b16_tokens_int8.onnx

transformers.js's quantize script calls onnxruntime.quantization.quantize_dynamic with weight type QInt8,
per_channel False, reduce_range False and extra_options MatMulConstBOnly. Python's onnxruntime is not
installable here, so this writes the same graph with Debian's python3-onnx: every MatMul whose B is an
initializer becomes onnxruntime's IntegerOps form,

    DynamicQuantizeLinear(A) -> A_q (uint8), A_scale, A_zero_point
    MatMulInteger(A_q, B_q, A_zero_point, B_zero_point) -> int32 -> Cast(float) -> Mul(A_scale * B_scale)

with B quantized per tensor, symmetric int8 (scale = max|B| / 127, zero point 0, values rounded half to
even and clipped to [-127, 127]), which onnxruntime's graph optimizer fuses into DynamicQuantizeMatMul
(MLAS's u8 x s8 kernels). Gemm nodes stay fp32, as quantize_dynamic's IntegerOps registry (Conv, MatMul,
Attention, LSTM) leaves them. Deterministic: a rerun writes identical bytes.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def quantize_weight(w):
    absmax = float(np.abs(w).max())
    scale = absmax / 127.0 if absmax > 0 else 1.0
    q = np.clip(np.rint(w.astype(np.float32) / np.float32(scale)), -127, 127).astype(np.int8)
    return q, np.float32(scale)


def main(src, dst):
    model = onnx.load(src)
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    consumers = {}
    for n in graph.node:
        for name in n.input:
            consumers[name] = consumers.get(name, 0) + 1
    nodes, added, dropped, quantized_inputs, count = [], [], set(), {}, 0
    for n in graph.node:
        if n.op_type != "MatMul" or n.input[1] not in inits:
            nodes.append(n)
            continue
        a, b, out = n.input[0], n.input[1], n.output[0]
        q, scale = quantize_weight(numpy_helper.to_array(inits[b]))
        added += [numpy_helper.from_array(q, f"{b}_quantized"), numpy_helper.from_array(np.array(scale, np.float32), f"{b}_scale"),
                  numpy_helper.from_array(np.array(0, np.int8), f"{b}_zero_point")]
        if consumers[b] == 1:
            dropped.add(b)
        if a not in quantized_inputs:  # one DynamicQuantizeLinear per activation, as quantize_dynamic does
            quantized_inputs[a] = (f"{a}_quantized", f"{a}_scale", f"{a}_zero_point")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [a], list(quantized_inputs[a]), name=f"{a}_QuantizeLinear"))
        a_q, a_scale, a_zp = quantized_inputs[a]
        nodes += [
            helper.make_node("MatMulInteger", [a_q, f"{b}_quantized", a_zp, f"{b}_zero_point"], [f"{out}_output_quantized"], name=f"{n.name}_quant"),
            helper.make_node("Mul", [a_scale, f"{b}_scale"], [f"{out}_scales_mul"], name=f"{n.name}_scales_mul"),
            helper.make_node("Cast", [f"{out}_output_quantized"], [f"{out}_output_quantized_cast"], to=TensorProto.FLOAT,
                             name=f"{n.name}_output_quantized_cast"),
            helper.make_node("Mul", [f"{out}_output_quantized_cast", f"{out}_scales_mul"], [out], name=f"{n.name}_output_scale_mul"),
        ]
        count += 1
    kept = [i for i in graph.initializer if i.name not in dropped]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + added)
    onnx.checker.check_model(model)
    onnx.save(model, dst)
    gemms = sum(1 for n in nodes if n.op_type == "Gemm")
    print(f"{dst}: {count} MatMul nodes quantized to int8 (IntegerOps), {gemms} Gemm left fp32")


if __name__ == "__main__":
    main(*sys.argv[1:3])
