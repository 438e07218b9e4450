#include "rope_pairs.h"

#include <cstdint>

#include "cpu_level.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define JEPA_ROPE_AVX512 1
#endif

namespace jepa {
namespace {

// The products are rounded before the sum, as by the separate mul and add nodes.
__attribute__((optimize("fp-contract=off"))) void rowScalar(const float* x, const float* c, const float* s, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float a = x[i] * c[i];
    const float b = x[i ^ 1] * s[i];
    y[i] = a + b;
  }
}

#if JEPA_ROPE_AVX512
__attribute__((target("avx512f"))) void rowAvx512(const float* x, const float* c, const float* s, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    const __m512 swapped = _mm512_permute_ps(v, 0xB1);  // (1, 0, 3, 2) in every 128-bit lane
    const __m512 a = _mm512_mul_round_ps(v, _mm512_loadu_ps(c + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 b = _mm512_mul_round_ps(swapped, _mm512_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm512_storeu_ps(y + i, _mm512_add_round_ps(a, b, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  rowScalar(x + i, c + i, s + i, y + i, n - i);
}

// Without fma contraction the products round before the sum, as in rowScalar.
__attribute__((target("avx2"), optimize("fp-contract=off"))) void rowAvx2(const float* x, const float* c, const float* s, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 swapped = _mm256_permute_ps(v, 0xB1);
    const __m256 a = _mm256_mul_ps(v, _mm256_loadu_ps(c + i));
    const __m256 b = _mm256_mul_ps(swapped, _mm256_loadu_ps(s + i));
    _mm256_storeu_ps(y + i, _mm256_add_ps(a, b));
  }
  rowScalar(x + i, c + i, s + i, y + i, n - i);
}
#endif

using RowFn = void (*)(const float*, const float*, const float*, float*, int64_t);

RowFn chooseRow() {
#if JEPA_ROPE_AVX512
  if (cpuLevel() == CpuLevel::Avx512) return rowAvx512;
  if (cpuLevel() == CpuLevel::Avx2) return rowAvx2;
#endif
  return rowScalar;
}

void ropeOp(ggml_tensor* dst, int ith, int nth, void*) {
  static const RowFn row = chooseRow();
  const ggml_tensor* x = dst->src[0];
  const auto* cos = static_cast<const float*>(dst->src[1]->data);
  const auto* sin = static_cast<const float*>(dst->src[2]->data);
  const int64_t hd = x->ne[0], heads = x->ne[1], tokens = x->ne[2];
  const int64_t rows = heads * tokens * x->ne[3];
  for (int64_t r = rows * ith / nth; r < rows * (ith + 1) / nth; ++r) {
    const int64_t h = r % heads, t = (r / heads) % tokens, b = r / (heads * tokens);
    const auto* in = reinterpret_cast<const float*>(static_cast<const char*>(x->data) + h * x->nb[1] + t * x->nb[2] + b * x->nb[3]);
    row(in, cos + t * hd, sin + t * hd, static_cast<float*>(dst->data) + r * hd, hd);
  }
}

}  // namespace

ggml_tensor* ropePairsCpu(ggml_context* ctx, ggml_tensor* x, ggml_tensor* cos, ggml_tensor* sin) {
  ggml_tensor* args[3] = {x, cos, sin};
  ggml_tensor* out = ggml_custom_4d(ctx, GGML_TYPE_F32, x->ne[0], x->ne[1], x->ne[2], x->ne[3], args, 3, ropeOp, GGML_N_TASKS_MAX, nullptr);
  return ggml_set_name(out, "ROPE_PAIRS_CPU");  // what Graph.ops() reports
}

}  // namespace jepa
