// The f32 and f16 panels (not part of the addon's API): a matrix of `rows` rows of k values is
// stored as rows/16 panels, each k steps of its 16 rows' values (row-contiguous per step), so a
// kernel reads 16 outputs' weights for one step as one vector (f16 widened exactly as it loads).
// No scales: each output is an f32 fma chain per block of k, in order, whoever computes it.
#pragma once

#include <cstdint>

#include "ggml.h"

namespace jepa::panel::f32 {

constexpr const char* kKernelName = "avx512";

bool supported();

void pack(const float* src, int64_t rows, int64_t k, float* dst);
void packHalf(const uint16_t* src, int64_t rows, int64_t k, uint16_t* dst);

// The ggml custom op: dst = mul_mat of the packed weight dst->src[0] and dst->src[1], then the
// panel::Epilogue userdata points to.
void op(ggml_tensor* dst, int ith, int nth, void* userdata);
void opHalf(ggml_tensor* dst, int ith, int nth, void* userdata);  // f16 panels

}  // namespace jepa::panel::f32
