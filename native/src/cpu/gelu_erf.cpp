#include "gelu_erf.h"

#include <cmath>
#include <cstdint>

#include "cpu_level.h"

#if defined(JEPA_HAVE_MVEC)
#include <immintrin.h>

// glibc's vector-ABI names for erff: 16 lanes on AVX-512 ("e"), 8 on AVX2 ("d").
extern "C" __m512 _ZGVeN16v_erff(__m512);
extern "C" __m256 _ZGVdN8v_erff(__m256);
#endif

namespace jepa {
namespace {

constexpr float kSqrtHalf = 0.70710678118654752440f;

void geluErfScalar(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * kSqrtHalf));
}

#if defined(JEPA_HAVE_MVEC)
__attribute__((target("avx512f"))) void geluErfAvx512(float* y, const float* x, int64_t n) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f), s = _mm512_set1_ps(kSqrtHalf);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(x + i);
    __m512 e = _ZGVeN16v_erff(_mm512_mul_ps(v, s));
    _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, e)));
  }
  geluErfScalar(y + i, x + i, n - i);
}

__attribute__((target("avx2"))) void geluErfAvx2(float* y, const float* x, int64_t n) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), s = _mm256_set1_ps(kSqrtHalf);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 e = _ZGVdN8v_erff(_mm256_mul_ps(v, s));
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_mul_ps(half, v), _mm256_add_ps(one, e)));
  }
  geluErfScalar(y + i, x + i, n - i);
}
#endif

using Kernel = void (*)(float*, const float*, int64_t);

struct Choice {
  Kernel fn;
  const char* name;
};

Choice choose() {
#if defined(JEPA_HAVE_MVEC)
  if (cpuLevel() == CpuLevel::Avx512) return {geluErfAvx512, "libmvec-avx512"};
  if (cpuLevel() == CpuLevel::Avx2) return {geluErfAvx2, "libmvec-avx2"};
#endif
  return {geluErfScalar, "scalar"};
}

const Choice& chosen() {
  static const Choice c = choose();
  return c;
}

// Each thread takes one contiguous run that starts on a cache line, so no two threads share a line.
void geluErfOp(ggml_tensor* dst, const ggml_tensor* a, int ith, int nth, void*) {
  const int64_t n = ggml_nelements(dst);
  const int64_t per = ((n + nth - 1) / nth + 15) / 16 * 16;
  const int64_t lo = per * ith;
  const int64_t hi = lo + per < n ? lo + per : n;
  if (lo >= hi) return;
  chosen().fn(static_cast<float*>(dst->data) + lo, static_cast<const float*>(a->data) + lo, hi - lo);
}

}  // namespace

ggml_tensor* geluErfCpu(ggml_context* ctx, ggml_tensor* a) {
  return ggml_set_name(ggml_map_custom1(ctx, a, geluErfOp, GGML_N_TASKS_MAX, nullptr), "GELU_ERF_CPU");  // what Graph.ops() reports
}

const char* geluErfCpuKernel() { return chosen().name; }

void geluErfRows(float* y, const float* x, int64_t n) { chosen().fn(y, x, n); }

}  // namespace jepa
