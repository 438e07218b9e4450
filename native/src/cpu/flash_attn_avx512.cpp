// The CPU flash kernel on AVX-512 (flash_attn_task.h): scores in tiles of 8 keys against up to 3
// groups of 16 queries (fma_tile.h), P·V in tiles of 8 queries (6 where dv is a multiple of 64), the
// softmax down 16-lane columns.
#include <algorithm>
#include <cmath>

#include "flash_attn_task.h"

#if defined(__x86_64__)
#include "fma_tile.h"
#define JEPA_FLASH_AVX512 1
#endif

namespace jepa::flash {

#if JEPA_FLASH_AVX512
namespace {

// exp(x) for the softmax's x ≤ 0, within 1 ulp of the true value (0.88 at worst over [-87, 0] against
// double exp), three times faster than glibc's vector expf: x = n·ln2 + r with |r| ≤ ln2/2 (ln2 in two
// parts, so r is exact), e^r by its Taylor series to r⁷/7!, times 2ⁿ by scalef (0 below -104, -inf too).
__attribute__((target("avx512f"))) inline __m512 expNonPositive(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-104.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);
  __m512 p = _mm512_set1_ps(1.0f / 5040);
  for (const float c : {1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
  return _mm512_scalef_ps(p, n);
}

struct Avx512 {
  static constexpr int64_t kKeyTile = cpu::kTileRows;
  static constexpr int64_t kKeyLda = cpu::kTileRows;

  static void transposeRows(const float* const rows[8], int64_t d, float* dst, int64_t stride) { cpu::transposeRows(rows, d, dst, stride); }

  __attribute__((target("avx512f,avx512bw"))) static bool allMasked(const ggml_fp16_t* mask, int64_t stride, int64_t j0, int64_t j1, int64_t rows) {
    const __m512i minusInf = _mm512_set1_epi16(static_cast<short>(0xFC00));
    for (int64_t j = j0; j < j1; ++j)
      for (int64_t t = 0; t < rows; t += 32) {
        const int64_t n = std::min<int64_t>(32, rows - t);
        const __mmask32 lanes = n == 32 ? 0xFFFFFFFFu : (1u << n) - 1;
        if (_mm512_mask_cmpneq_epi16_mask(lanes, _mm512_maskz_loadu_epi16(lanes, mask + j * stride + t), minusInf)) return false;
      }
    return true;
  }

  static void scores(const float* keys, const float* queries, int64_t d, int groups, int r, float* probs) {
    cpu::kFmaTiles[groups][r](keys, kKeyLda, queries, d * 16, 16, d, probs, kQueries, true);
  }

  // For each of a block's 16-query groups: softmax down the columns of probs (scores ·scale + mask) over
  // the key runs, in place; returns the inverse column sums (0 for a column that sees no key) in inv.
  // mask: the block's first query in row 0 of a key-major F16 mask (key j's row at j·maskStride),
  // valid for `rows` queries.
  __attribute__((target("avx512f,avx512bw,avx512vl"))) static void softmaxColumns(float* probs, const ggml_fp16_t* mask, int64_t maskStride,
                                                                                 int64_t rows, const KeyRuns& runs, int groups, float scale,
                                                                                 float* sums) {
    const __m512 vscale = _mm512_set1_ps(scale);
    for (int g = 0; g < groups; ++g) {
      float* col = probs + g * 16;
      const int64_t valid = std::min<int64_t>(16, rows - g * 16);
      const __mmask16 lanes = static_cast<__mmask16>((1u << valid) - 1);
      __m512 vmax = _mm512_set1_ps(-INFINITY);
      for (const auto& [j0, j1] : runs)
        for (int64_t j = j0; j < j1; ++j) {
          __m512 x = _mm512_mul_ps(_mm512_loadu_ps(col + j * kQueries), vscale);
          if (mask) x = _mm512_add_ps(x, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(lanes, mask + j * maskStride + g * 16)));
          _mm512_storeu_ps(col + j * kQueries, x);
          vmax = _mm512_max_ps(vmax, x);
        }
      // a column masked everywhere gets zeros, as in ggml: subtract 0 instead of -inf
      const __mmask16 dead = _mm512_cmp_ps_mask(vmax, _mm512_set1_ps(-INFINITY), _CMP_EQ_OQ);
      vmax = _mm512_mask_mov_ps(vmax, dead, _mm512_setzero_ps());
      __m512 vsum = _mm512_setzero_ps();
      for (const auto& [j0, j1] : runs)
        for (int64_t j = j0; j < j1; ++j) {
          const __m512 p = expNonPositive(_mm512_sub_ps(_mm512_loadu_ps(col + j * kQueries), vmax));
          _mm512_storeu_ps(col + j * kQueries, p);
          vsum = _mm512_add_ps(vsum, p);
        }
      const __m512 inv = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(vsum, _mm512_setzero_ps(), _CMP_NEQ_OQ), _mm512_set1_ps(1.0f), vsum);
      _mm512_storeu_ps(sums + g * 16, inv);
    }
  }

  // A dv of 64s takes tiles of 6 queries × 64 outputs, any other multiple of 16 tiles of 8 × up to 48.
  static int64_t pvTileRows(int64_t dvp) { return dvp % 64 == 0 ? cpu::kWideTileRows : cpu::kTileRows; }
  static void pv(const float* a, int r, const float* values, int64_t dvp, int64_t n, float* out, int64_t ldo, bool first) {
    if (dvp % 64 == 0)
      for (int64_t g = 0; g < dvp / 16; g += 4) cpu::kFmaTiles4[r](a, kQueries, values + g * 16, 16, dvp, n, out + g * 16, ldo, first);
    else
      cpu::fmaRow(a, kQueries, r, values, dvp / 16, 16, dvp, n, out, ldo, first);
  }

  // dst = src rounded through f16 (to nearest even, as ggml_cast rounds): the F16 K/V policy.
  __attribute__((target("avx512f"))) static void roundThroughF16(const float* src, float* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
      _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
    for (; i < n; ++i) dst[i] = ggml_fp16_to_fp32(ggml_fp32_to_fp16(src[i]));
  }

  __attribute__((target("avx512f"))) static void scaleRow(float* row, int64_t n, float by) {
    const __m512 v = _mm512_set1_ps(by);
    for (int64_t c = 0; c < n; c += 16) _mm512_storeu_ps(row + c, _mm512_mul_ps(_mm512_loadu_ps(row + c), v));
  }
};

}  // namespace

const TaskFn kAvx512Task = attendTask<Avx512>;
#else
const TaskFn kAvx512Task = nullptr;
#endif

}  // namespace jepa::flash
