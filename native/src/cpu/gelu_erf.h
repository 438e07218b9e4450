// GELU(erf) as a ggml custom op for the CPU backend, in SIMD lanes through erf_lanes.h's rational erf.
#pragma once

#include <cstdint>

#include "ggml.h"

namespace jepa {

// dst = 0.5·x·(1 + erf(x/√2)), the function ggml_gelu_erf computes (erf within 3.4e-7 of the true one),
// with the same bits at every level: AVX-512 or AVX2 lanes, chosen at run time from the CPU, or the
// scalar loop. a must be contiguous F32.
// The node runs only on the CPU backend.
ggml_tensor* geluErfCpu(ggml_context* ctx, ggml_tensor* a);

// Which lanes the CPU op uses: "rational-avx512", "rational-avx2" or "rational-scalar".
const char* geluErfCpuKernel();

// The op's arithmetic on n values, for nodes that apply it to their own outputs (y may be x).
void geluErfRows(float* y, const float* x, int64_t n);

}  // namespace jepa
