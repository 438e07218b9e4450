// Matrix products for the CPU backend on x86, from weights repacked once into panels of 16 rows.
// Quantized weights (q8_0, q4_0, q4_K) need VNNI: the activations are quantized to 8 bits per
// 32-value block as ggml's q8_0 does; each block's products are summed exactly in int32 by vpdpbusd
// before its scales (and, for 4-bit, its mins) are applied in f32. q8_row (I8 weights with row scales)
// is summed exactly over the whole row instead, on AMX, AVX-512 VNNI or AVX-VNNI (panel_rows.h). ggml has no repacked q8_0 kernel
// for x86, and its generic one runs slower than f32 there. f32 and f16 weights need AVX-512: plain
// f32 fma chains (f16 widened exactly as it loads), with the panels and the repacked activations
// making every load a sequential one.
#pragma once

#include <cstdint>

#include "ggml.h"
#include "gelu_erf.h"

namespace jepa {

constexpr int64_t kPanelRows = 16;

// The fastest panel kernel this CPU runs for `type` ("avx512-vnni", "avx-vnni" or "avx2" for the
// quantized types; "amx", "avx512-vnni", "avx-vnni", "avx512" or "avx2" for q8_row (I8 with row scales);
// "avx512" or "avx2" for f32 and f16), or nullptr when it has none.
const char* panelBestKernel(ggml_type type);

// Whether this CPU runs the named kernel, and it is one for `type`.
bool panelKernelAvailable(ggml_type type, const char* name);

// Bytes of the panel form of a `type` matrix of `rows` rows of `k` values, or -1 when the type has
// no panel form or the shape does not fit it (rows % 16, k % the type's block). f32 / f16: rows·k·4 / ·2.
int64_t panelBytes(ggml_type type, int64_t rows, int64_t k);

// Repacks a `type` matrix (ggml's layout, rows contiguous) into `dst` of panelBytes bytes.
void panelPack(ggml_type type, const void* rows, int64_t nrows, int64_t k, void* dst);

// Repacks a q8_row matrix (an I8 matrix, rows contiguous, with one f32 scale per row: w = scale·q)
// into `dst` of panelBytes(GGML_TYPE_I8, nrows, k) bytes.
void panelPackRows(const int8_t* q, const float* scales, int64_t nrows, int64_t k, void* dst);

// What follows the product in the graph a panel node replaces, applied to each output in this order:
// + bias (F32 [rows]), GELU(erf) with the erf `erf` (gelu_erf.h), · scale (F32 [rows]), then add +
// output (F32, the output's shape, contiguous). Null / false: not there.
struct PanelEpilogue {
  ggml_tensor* bias = nullptr;
  bool gelu = false;
  GeluErf erf = GeluErf::Libm;
  ggml_tensor* scale = nullptr;
  ggml_tensor* add = nullptr;
};

// dst [rows, x->ne[1], x->ne[2], x->ne[3]] = ggml_mul_mat of the original `type` weight, from its
// panel form, on the named kernel, then `then`. x: contiguous F32 with x->ne[0] == k.
ggml_tensor* panelMulMat(ggml_context* ctx, ggml_tensor* panel, ggml_tensor* x, int64_t rows, ggml_type type, const char* kernel,
                         const PanelEpilogue& then);

}  // namespace jepa
