// GELU(erf) as a ggml custom op for the CPU backend, vectorised through glibc's libmvec erff.
#pragma once

#include <cstdint>

#include "ggml.h"

namespace jepa {

// dst = 0.5·x·(1 + erf(x/√2)), the function ggml_gelu_erf computes, in SIMD lanes where the build found
// libmvec (x86-64 glibc ≥ 2.35); otherwise the same scalar loop as ggml. a must be contiguous F32;
// the AVX-512 or AVX2 lanes are chosen at run time from the CPU.
// The node runs only on the CPU backend.
ggml_tensor* geluErfCpu(ggml_context* ctx, ggml_tensor* a);

// Which erff the CPU op uses: "libmvec-avx512", "libmvec-avx2" or "scalar".
const char* geluErfCpuKernel();

// The op's arithmetic on n values, for nodes that apply it to their own outputs (y may be x).
void geluErfRows(float* y, const float* x, int64_t n);

}  // namespace jepa
