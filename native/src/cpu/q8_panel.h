// q8_0 matrix products for the CPU backend on x86 with VNNI: the weights repacked once into panels
// of 16 rows, the activations quantized to 8 bits per 32-value block as ggml's q8_0 does, and the
// products summed exactly in int32 by vpdpbusd before each block's scales are applied in f32.
// ggml has no repacked q8_0 kernel for x86, and its generic one runs slower than f32 there.
#pragma once

#include <cstdint>

#include "ggml.h"

namespace jepa {

constexpr int64_t kQ8PanelRows = 16;

// The fastest panel kernel this CPU runs ("avx512-vnni", "avx-vnni"), or nullptr when it has none.
const char* q8PanelBestKernel();

// Whether this CPU runs the named kernel.
bool q8PanelKernelAvailable(const char* name);

// Bytes of the packed form of a q8_0 matrix of `rows` rows of `k` values (rows % 16 == 0, k % 32 == 0).
int64_t q8PanelBytes(int64_t rows, int64_t k);

// Repacks q8_0 rows (ggml's block_q8_0 layout) into `dst`, which holds q8PanelBytes(rows, k) bytes.
void q8PanelPack(const void* q8rows, int64_t rows, int64_t k, void* dst);

// dst [rows, x->ne[1], x->ne[2], x->ne[3]] = panel · x, the ggml_mul_mat of the original q8_0 weight,
// on the named kernel (one q8PanelKernelAvailable accepts). panel: a tensor holding q8PanelPack's
// bytes; x: contiguous F32 with x->ne[0] == k.
ggml_tensor* q8PanelMulMat(ggml_context* ctx, ggml_tensor* panel, ggml_tensor* x, int64_t rows, const char* kernel);

}  // namespace jepa
