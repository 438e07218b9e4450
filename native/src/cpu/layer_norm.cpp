#include "layer_norm.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cpu_level.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define JEPA_LN_AVX512 1
#endif

namespace jepa {
namespace {

void rowScalar(const float* x, const float* w, const float* b, float* y, int64_t n, float eps) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) sq += static_cast<double>(x[i] - mean) * (x[i] - mean);
  const float rstd = 1.0f / std::sqrt(static_cast<float>(sq / static_cast<double>(n)) + eps);
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
}

#if JEPA_LN_AVX512
// 16 lanes per step, each lane's partial sums in double (8 + 8).
__attribute__((target("avx512f,avx512dq"))) void rowAvx512(const float* x, const float* w, const float* b, float* y, int64_t n, float eps) {
  const int64_t full = n - n % 16;
  __m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
  for (int64_t i = 0; i < full; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    lo = _mm512_add_pd(lo, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
    hi = _mm512_add_pd(hi, _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)));
  }
  double sum = _mm512_reduce_add_pd(_mm512_add_pd(lo, hi));
  for (int64_t i = full; i < n; ++i) sum += x[i];
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  const __m512 vmean = _mm512_set1_ps(mean);
  lo = _mm512_setzero_pd();
  hi = _mm512_setzero_pd();
  for (int64_t i = 0; i < full; i += 16) {
    const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + i), vmean);
    const __m512d dl = _mm512_cvtps_pd(_mm512_castps512_ps256(d)), dh = _mm512_cvtps_pd(_mm512_extractf32x8_ps(d, 1));
    lo = _mm512_fmadd_pd(dl, dl, lo);
    hi = _mm512_fmadd_pd(dh, dh, hi);
  }
  double sq = _mm512_reduce_add_pd(_mm512_add_pd(lo, hi));
  for (int64_t i = full; i < n; ++i) sq += static_cast<double>(x[i] - mean) * (x[i] - mean);
  const float rstd = 1.0f / std::sqrt(static_cast<float>(sq / static_cast<double>(n)) + eps);
  const __m512 vr = _mm512_set1_ps(rstd);
  for (int64_t i = 0; i < full; i += 16) {
    const __m512 d = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vmean), vr);
    _mm512_storeu_ps(y + i, _mm512_add_ps(_mm512_mul_ps(d, _mm512_loadu_ps(w + i)), _mm512_loadu_ps(b + i)));
  }
  for (int64_t i = full; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
}

__attribute__((target("avx2"))) double sum4(__m256d v) {
  const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

// 8 lanes per step, each lane's partial sums in double (4 + 4).
__attribute__((target("avx2,fma"))) void rowAvx2(const float* x, const float* w, const float* b, float* y, int64_t n, float eps) {
  const int64_t full = n - n % 8;
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  for (int64_t i = 0; i < full; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
  }
  double sum = sum4(_mm256_add_pd(lo, hi));
  for (int64_t i = full; i < n; ++i) sum += x[i];
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  const __m256 vmean = _mm256_set1_ps(mean);
  lo = _mm256_setzero_pd();
  hi = _mm256_setzero_pd();
  for (int64_t i = 0; i < full; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), vmean);
    const __m256d dl = _mm256_cvtps_pd(_mm256_castps256_ps128(d)), dh = _mm256_cvtps_pd(_mm256_extractf128_ps(d, 1));
    lo = _mm256_fmadd_pd(dl, dl, lo);
    hi = _mm256_fmadd_pd(dh, dh, hi);
  }
  double sq = sum4(_mm256_add_pd(lo, hi));
  for (int64_t i = full; i < n; ++i) sq += static_cast<double>(x[i] - mean) * (x[i] - mean);
  const float rstd = 1.0f / std::sqrt(static_cast<float>(sq / static_cast<double>(n)) + eps);
  const __m256 vr = _mm256_set1_ps(rstd);
  for (int64_t i = 0; i < full; i += 8) {
    const __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmean), vr);
    _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_mul_ps(d, _mm256_loadu_ps(w + i)), _mm256_loadu_ps(b + i)));
  }
  for (int64_t i = full; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
}
#endif

using RowFn = void (*)(const float*, const float*, const float*, float*, int64_t, float);

RowFn chooseRow() {
#if JEPA_LN_AVX512
  if (cpuLevel() == CpuLevel::Avx512) return rowAvx512;
  if (cpuLevel() == CpuLevel::Avx2) return rowAvx2;
#endif
  return rowScalar;
}

void layerNormOp(ggml_tensor* dst, int ith, int nth, void* userdata) {
  static const RowFn row = chooseRow();
  float eps;
  const auto bits = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(userdata));  // eps travels as its bits
  std::memcpy(&eps, &bits, sizeof eps);
  const ggml_tensor* x = dst->src[0];
  const auto* w = static_cast<const float*>(dst->src[1]->data);
  const auto* b = static_cast<const float*>(dst->src[2]->data);
  const int64_t n = x->ne[0], rows = ggml_nrows(x);
  const int64_t r0 = rows * ith / nth, r1 = rows * (ith + 1) / nth;
  for (int64_t r = r0; r < r1; ++r) row(static_cast<const float*>(x->data) + r * n, w, b, static_cast<float*>(dst->data) + r * n, n, eps);
}

}  // namespace

ggml_tensor* layerNormCpu(ggml_context* ctx, ggml_tensor* x, ggml_tensor* w, ggml_tensor* b, float eps) {
  ggml_tensor* args[3] = {x, w, b};
  uint32_t bits;
  std::memcpy(&bits, &eps, sizeof bits);
  ggml_tensor* out = ggml_custom_4d(ctx, GGML_TYPE_F32, x->ne[0], x->ne[1], x->ne[2], x->ne[3], args, 3, layerNormOp, GGML_N_TASKS_MAX,
                                    reinterpret_cast<void*>(static_cast<uintptr_t>(bits)));
  return ggml_set_name(out, "LAYER_NORM_CPU");  // what Graph.ops() reports
}

}  // namespace jepa
