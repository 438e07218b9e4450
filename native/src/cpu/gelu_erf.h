// GELU(erf) as a ggml custom op for the CPU backend, in SIMD lanes, with either of two erfs.
#pragma once

#include <cstdint>

#include "ggml.h"

namespace jepa {

// Which erf a GELU takes.
//   Libm:     glibc's erff, in libmvec's lanes where the build found them (x86-64 glibc ≥ 2.35), else
//             the scalar loop of ggml_gelu_erf; the lanes differ by level in the last bits.
//   Rational: erf_lanes.h's, within 3.4e-7 of erf, three times faster than libmvec's, and the same bits
//             at every level. The graph gives it to the GELU after a weight stored below 16-bit floats
//             (8- and 4-bit, bf16), whose products carry errors far larger than that.
enum class GeluErf { Libm, Rational };

// dst = 0.5·x·(1 + erf(x/√2)), the function ggml_gelu_erf computes. a must be contiguous F32; the
// AVX-512 or AVX2 lanes are chosen at run time from the CPU. The node runs only on the CPU backend.
ggml_tensor* geluErfCpu(ggml_context* ctx, ggml_tensor* a, GeluErf erf);

// The lanes the op takes for erf: "libmvec-avx512", "libmvec-avx2" or "scalar" (Libm);
// "rational-avx512", "rational-avx2" or "rational-scalar" (Rational).
const char* geluErfCpuKernel(GeluErf erf);

// The op's arithmetic on n values, for nodes that apply it to their own outputs (y may be x).
void geluErfRows(float* y, const float* x, int64_t n, GeluErf erf);

}  // namespace jepa
