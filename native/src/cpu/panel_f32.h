// The f32 and f16 panels (not part of the addon's API): a matrix of `rows` rows of k values is
// stored as rows/16 panels, each k steps of its 16 rows' values (row-contiguous per step), so a
// kernel reads 16 outputs' weights for one step as one or two vectors (f16 widened exactly as it
// loads). No scales: each output is an f32 fma chain per block of k, in order, whoever computes it.
#pragma once

#include <cstdint>

#include "ggml.h"

namespace jepa::panel::f32 {

// The kernel at this CPU level ("avx512", "avx2"), or nullptr when there is none.
const char* kernelName();

void pack(const float* src, int64_t rows, int64_t k, float* dst);
void packHalf(const uint16_t* src, int64_t rows, int64_t k, uint16_t* dst);

// The ggml custom op: dst = mul_mat of the packed weight dst->src[0] and dst->src[1], then the
// panel::Epilogue userdata points to.
void op(ggml_tensor* dst, int ith, int nth, void* userdata);
void opHalf(ggml_tensor* dst, int ith, int nth, void* userdata);  // f16 panels

// One level's kernel: tokens [m0, m1) of x (k values each) against panels [p0, p1), to out (row
// length `rows`).
template <typename W>
using RunFn = void (*)(const float* x, int64_t k, int64_t m0, int64_t m1, const W* packed, int64_t p0, int64_t p1, float* out, int64_t rows);

struct Level {
  const char* name;
  void (*pack)(const float* src, int64_t rows, int64_t k, float* dst);
  RunFn<float> run;
  RunFn<uint16_t> runHalf;
};

extern const Level kAvx512;  // panel_f32_avx512.cpp; null functions where the build has no x86 target
extern const Level kAvx2;    // panel_f32_avx2.cpp

}  // namespace jepa::panel::f32
