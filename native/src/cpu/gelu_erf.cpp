#include "gelu_erf.h"

#include <cmath>
#include <cstdint>

#include "cpu_level.h"
#include "erf_lanes.h"

#if defined(JEPA_HAVE_MVEC)
#include <immintrin.h>

// glibc's vector-ABI names for erff: 16 lanes on AVX-512 ("e"), 8 on AVX2 ("d").
extern "C" __m512 _ZGVeN16v_erff(__m512);
extern "C" __m256 _ZGVdN8v_erff(__m256);
#endif

namespace jepa {
namespace {

constexpr float kSqrtHalf = 0.70710678118654752440f;

void libmScalar(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * kSqrtHalf));
}

#if defined(JEPA_HAVE_MVEC)
__attribute__((target("avx512f"))) void libmAvx512(float* y, const float* x, int64_t n) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f), s = _mm512_set1_ps(kSqrtHalf);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(x + i);
    __m512 e = _ZGVeN16v_erff(_mm512_mul_ps(v, s));
    _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, e)));
  }
  libmScalar(y + i, x + i, n - i);
}

__attribute__((target("avx2"))) void libmAvx2(float* y, const float* x, int64_t n) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), s = _mm256_set1_ps(kSqrtHalf);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 e = _ZGVdN8v_erff(_mm256_mul_ps(v, s));
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_mul_ps(half, v), _mm256_add_ps(one, e)));
  }
  libmScalar(y + i, x + i, n - i);
}
#endif

// The rational lanes: each value as erf_lanes::geluScalar computes it (gelu16 and gelu8 round alike).
void rationalScalar(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = erf_lanes::geluScalar(x[i]);
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void rationalAvx512(float* y, const float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, erf_lanes::gelu16(_mm512_loadu_ps(x + i)));
  rationalScalar(y + i, x + i, n - i);
}

__attribute__((target("avx2,fma"))) void rationalAvx2(float* y, const float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, erf_lanes::gelu8(_mm256_loadu_ps(x + i)));
  rationalScalar(y + i, x + i, n - i);
}
#endif

using Kernel = void (*)(float*, const float*, int64_t);

struct Choice {
  Kernel fn;
  const char* name;
};

Choice chooseLibm() {
#if defined(JEPA_HAVE_MVEC)
  if (cpuLevel() == CpuLevel::Avx512) return {libmAvx512, "libmvec-avx512"};
  if (cpuLevel() == CpuLevel::Avx2) return {libmAvx2, "libmvec-avx2"};
#endif
  return {libmScalar, "scalar"};
}

Choice chooseRational() {
#if defined(__x86_64__)
  if (cpuLevel() == CpuLevel::Avx512) return {rationalAvx512, "rational-avx512"};
  if (cpuLevel() == CpuLevel::Avx2) return {rationalAvx2, "rational-avx2"};
#endif
  return {rationalScalar, "rational-scalar"};
}

const Choice& chosen(GeluErf erf) {
  static const Choice libm = chooseLibm(), rational = chooseRational();
  return erf == GeluErf::Rational ? rational : libm;
}

// Each thread takes one contiguous run that starts on a cache line, so no two threads share a line.
void geluErfOp(ggml_tensor* dst, const ggml_tensor* a, int ith, int nth, void* userdata) {
  const int64_t n = ggml_nelements(dst);
  const int64_t per = ((n + nth - 1) / nth + 15) / 16 * 16;
  const int64_t lo = per * ith;
  const int64_t hi = lo + per < n ? lo + per : n;
  if (lo >= hi) return;
  const auto erf = static_cast<GeluErf>(reinterpret_cast<uintptr_t>(userdata));
  chosen(erf).fn(static_cast<float*>(dst->data) + lo, static_cast<const float*>(a->data) + lo, hi - lo);
}

}  // namespace

ggml_tensor* geluErfCpu(ggml_context* ctx, ggml_tensor* a, GeluErf erf) {
  void* userdata = reinterpret_cast<void*>(static_cast<uintptr_t>(erf));
  // what Graph.ops() reports
  return ggml_set_name(ggml_map_custom1(ctx, a, geluErfOp, GGML_N_TASKS_MAX, userdata), erf == GeluErf::Rational ? "GELU_ERF_CPU rational" : "GELU_ERF_CPU");
}

const char* geluErfCpuKernel(GeluErf erf) { return chosen(erf).name; }

void geluErfRows(float* y, const float* x, int64_t n, GeluErf erf) { chosen(erf).fn(y, x, n); }

}  // namespace jepa
