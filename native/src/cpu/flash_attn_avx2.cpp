// The CPU flash kernel on AVX2 + FMA (flash_attn_task.h): scores in tiles of 6 keys, P·V in tiles of
// 6 queries, each against 16 outputs (fma_tile_avx2.h), the softmax down 8-lane columns.
#include <algorithm>
#include <cmath>

#include "flash_attn_task.h"

#if defined(JEPA_HAVE_MVEC) && defined(__x86_64__)
#include "fma_tile_avx2.h"
#define JEPA_FLASH_AVX2 1
// glibc's vector-ABI expf, 8 lanes.
extern "C" __m256 _ZGVdN8v_expf(__m256);
#endif

namespace jepa::flash {

#if JEPA_FLASH_AVX2
namespace {

using cpu::avx2::kTileRows;

constexpr uint16_t kMinusInf = 0xFC00;

struct Avx2 {
  static constexpr int64_t kKeyTile = kTileRows;
  static constexpr int64_t kKeyLda = cpu::avx2::kLda;

  static void transposeRows(const float* const rows[8], int64_t d, float* dst, int64_t stride) { cpu::avx2::transposeRows(rows, d, dst, stride); }

  JEPA_AVX2_TARGET static bool allMasked(const ggml_fp16_t* mask, int64_t stride, int64_t j0, int64_t j1, int64_t rows) {
    const __m256i minusInf = _mm256_set1_epi16(static_cast<short>(kMinusInf));
    for (int64_t j = j0; j < j1; ++j) {
      const ggml_fp16_t* row = mask + j * stride;
      int64_t t = 0;
      for (; t + 16 <= rows; t += 16) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + t));
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi16(v, minusInf)) != -1) return false;
      }
      for (; t < rows; ++t)
        if (row[t] != kMinusInf) return false;
    }
    return true;
  }

  static void scores(const float* keys, const float* queries, int64_t d, int groups, int r, float* probs) {
    for (int g = 0; g < groups; ++g) cpu::avx2::kFmaTiles<float>[r](keys, kKeyLda, queries + g * d * 16, 16, d, probs + g * 16, kQueries, true);
  }

  // 8 mask values of one key for queries [t, t + 8) of which `valid` exist (the rest read as 0).
  JEPA_AVX2_TARGET static __m256 maskLanes(const ggml_fp16_t* at, int64_t valid) {
    if (valid >= 8) return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)));
    alignas(16) ggml_fp16_t lanes[8] = {};
    for (int64_t i = 0; i < valid; ++i) lanes[i] = at[i];
    return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(lanes)));
  }

  // flash_attn_avx512.cpp's softmaxColumns, 8 columns at a time.
  JEPA_AVX2_TARGET static void softmaxColumns(float* probs, const ggml_fp16_t* mask, int64_t maskStride, int64_t rows, const KeyRuns& runs,
                                              int groups, float scale, float* sums) {
    const __m256 vscale = _mm256_set1_ps(scale), minusInf = _mm256_set1_ps(-INFINITY), zero = _mm256_setzero_ps();
    for (int h = 0; h < groups * 2; ++h) {
      float* col = probs + h * 8;
      const int64_t valid = std::max<int64_t>(0, std::min<int64_t>(8, rows - h * 8));
      __m256 vmax = minusInf;
      for (const auto& [j0, j1] : runs)
        for (int64_t j = j0; j < j1; ++j) {
          __m256 x = _mm256_mul_ps(_mm256_loadu_ps(col + j * kQueries), vscale);
          if (mask) x = _mm256_add_ps(x, maskLanes(mask + j * maskStride + h * 8, valid));
          _mm256_storeu_ps(col + j * kQueries, x);
          vmax = _mm256_max_ps(vmax, x);
        }
      // a column masked everywhere gets zeros, as in ggml: subtract 0 instead of -inf
      vmax = _mm256_blendv_ps(vmax, zero, _mm256_cmp_ps(vmax, minusInf, _CMP_EQ_OQ));
      __m256 vsum = zero;
      for (const auto& [j0, j1] : runs)
        for (int64_t j = j0; j < j1; ++j) {
          const __m256 p = _ZGVdN8v_expf(_mm256_sub_ps(_mm256_loadu_ps(col + j * kQueries), vmax));
          _mm256_storeu_ps(col + j * kQueries, p);
          vsum = _mm256_add_ps(vsum, p);
        }
      const __m256 seen = _mm256_cmp_ps(vsum, zero, _CMP_NEQ_OQ);
      _mm256_storeu_ps(sums + h * 8, _mm256_and_ps(seen, _mm256_div_ps(_mm256_set1_ps(1.0f), vsum)));
    }
  }

  static int64_t pvTileRows(int64_t) { return kTileRows; }
  static void pv(const float* a, int r, const float* values, int64_t dvp, int64_t n, float* out, int64_t ldo, bool first) {
    for (int64_t c = 0; c < dvp; c += 16) cpu::avx2::kFmaTiles<float>[r](a, kQueries, values + c, dvp, n, out + c, ldo, first);
  }

  // dst = src rounded through f16 (to nearest even, as ggml_cast rounds): the F16 K/V policy.
  JEPA_AVX2_TARGET static void roundThroughF16(const float* src, float* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
    for (; i < n; ++i) dst[i] = ggml_fp16_to_fp32(ggml_fp32_to_fp16(src[i]));
  }

  JEPA_AVX2_TARGET static void scaleRow(float* row, int64_t n, float by) {
    const __m256 v = _mm256_set1_ps(by);
    for (int64_t c = 0; c < n; c += 8) _mm256_storeu_ps(row + c, _mm256_mul_ps(_mm256_loadu_ps(row + c), v));
  }
};

}  // namespace

const TaskFn kAvx2Task = attendTask<Avx2>;
#else
const TaskFn kAvx2Task = nullptr;
#endif

}  // namespace jepa::flash
