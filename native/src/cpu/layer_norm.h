// LayerNorm as one CPU node: y = (x − mean) / sqrt(var + eps) · w + b per row, what ggml_norm
// followed by a mul and an add computes, in one visit of each row (three passes while it sits in
// L1) instead of three graph nodes. Mean and variance are accumulated in double.
#pragma once

#include "ggml.h"

namespace jepa {

// x: contiguous F32 [n, ...]; w, b: contiguous F32 [n]. Only the CPU backend runs the node.
ggml_tensor* layerNormCpu(ggml_context* ctx, ggml_tensor* x, ggml_tensor* w, ggml_tensor* b, float eps);

}  // namespace jepa
