#include "gelu_erf.h"

#include <cmath>
#include <cstdint>

#include "cpu_level.h"
#include "erf_lanes.h"

namespace jepa {
namespace {

constexpr float kSqrtHalf = 0.70710678118654752440f;

void geluErfScalar(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (0.5f * x[i]) * (1.0f + erf_lanes::erfScalar(x[i] * kSqrtHalf));
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void geluErfAvx512(float* y, const float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, geluErf16(_mm512_loadu_ps(x + i)));
  geluErfScalar(y + i, x + i, n - i);
}

__attribute__((target("avx2,fma"))) void geluErfAvx2(float* y, const float* x, int64_t n) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), s = _mm256_set1_ps(kSqrtHalf);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 e = erf_lanes::erf8(_mm256_mul_ps(v, s));
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
#if defined(__x86_64__)
  if (cpuLevel() == CpuLevel::Avx512) return {geluErfAvx512, "rational-avx512"};
  if (cpuLevel() == CpuLevel::Avx2) return {geluErfAvx2, "rational-avx2"};
#endif
  return {geluErfScalar, "rational-scalar"};
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
