// Rotary embedding from host-built tables as one CPU node: y = x·cos + swap(x)·sin, where swap
// exchanges the two members of each pair of head_dim values. What the roll, two muls and an add of
// the portable graph compute, reading x through its strides (a view of a fused qkv tensor) and
// writing y contiguous, in one pass.
#pragma once

#include "ggml.h"

namespace jepa {

// x: F32 [hd, heads, tokens, batch] with contiguous rows, hd even; cos, sin: contiguous F32
// [hd, 1, tokens, 1]. Only the CPU backend runs the node.
ggml_tensor* ropePairsCpu(ggml_context* ctx, ggml_tensor* x, ggml_tensor* cos, ggml_tensor* sin);

}  // namespace jepa
