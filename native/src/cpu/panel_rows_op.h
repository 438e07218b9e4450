// What panel.cpp needs of the q8_row panels (not part of the addon's API).
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "ggml.h"
#include "panel_layout.h"
#include "panel_rows.h"

namespace jepa::panel::rows {

// The fastest q8_row kernel this CPU runs ("amx", "avx512-vnni", "avx-vnni", "avx512", "avx2"), or nullptr.
const char* bestKernel();
// The named kernel where this CPU runs it, else nullptr.
const Kernel* findKernel(const char* name);
// Bytes of the panel form of a rows × k q8_row matrix, or -1 when it has none (rows % 16, k > kMaxK).
int64_t matrixBytes(int64_t rows, int64_t k);
// Repacks q (rows contiguous, k each) and its per-row scales into dst of matrixBytes bytes.
void pack(const int8_t* q, const float* scales, int64_t nrows, int64_t k, uint8_t* dst);
// The node: args = panel, x, then the epilogue's operands.
ggml_tensor* mulMat(ggml_context* ctx, ggml_tensor** args, int nargs, int64_t rows, const Kernel* kernel, Epilogue e, const ggml_tensor* x);

}  // namespace jepa::panel::rows
