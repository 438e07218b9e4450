// The CPU flash kernel on AVX2 + FMA: flash_attn.cpp's blocks and order of arithmetic, with tiles of
// 6 keys (scores) or 6 queries (P·V) against 16 outputs (fma_tile_avx2.h) and the softmax down
// 8-lane columns.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "flash_attn_parts.h"

#if defined(JEPA_HAVE_MVEC) && defined(__x86_64__)
#include "fma_tile_avx2.h"
#define JEPA_FLASH_AVX2 1
// glibc's vector-ABI expf, 8 lanes.
extern "C" __m256 _ZGVdN8v_expf(__m256);
#endif

namespace jepa::flash {

#if JEPA_FLASH_AVX2
namespace {

using cpu::avx2::kLda;
using cpu::avx2::kTileRows;

constexpr uint16_t kMinusInf = 0xFC00;

// Whether keys [j0, j1) are -inf for every one of `rows` queries (mask: the block's first query).
JEPA_AVX2_TARGET bool allMasked(const ggml_fp16_t* mask, int64_t stride, int64_t j0, int64_t j1, int64_t rows) {
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

void keyRuns(const ggml_fp16_t* mask, int64_t stride, int64_t nk, int64_t rows, KeyRuns& runs) {
  runs.clear();
  for (int64_t j0 = 0; j0 < nk; j0 += kTileRows) {
    const int64_t j1 = std::min<int64_t>(nk, j0 + kTileRows);
    if (mask && allMasked(mask, stride, j0, j1, rows)) continue;
    if (!runs.empty() && runs.back().second == j0)
      runs.back().second = j1;
    else
      runs.emplace_back(j0, j1);
  }
}

// 8 mask values of one key for queries [t, t + 8) of which `valid` exist (the rest read as 0).
JEPA_AVX2_TARGET __m256 maskLanes(const ggml_fp16_t* at, int64_t valid) {
  if (valid >= 8) return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)));
  alignas(16) ggml_fp16_t lanes[8] = {};
  for (int64_t i = 0; i < valid; ++i) lanes[i] = at[i];
  return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(lanes)));
}

// flash_attn.cpp's softmaxColumns, 8 columns at a time.
JEPA_AVX2_TARGET void softmaxColumns(float* probs, const ggml_fp16_t* mask, int64_t maskStride, int64_t rows, const KeyRuns& runs, int groups,
                                     float scale, float* sums) {
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

// dst = src rounded through f16 (to nearest even, as ggml_cast rounds): the F16 K/V policy.
JEPA_AVX2_TARGET void roundThroughF16(const float* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
  for (; i < n; ++i) dst[i] = ggml_fp16_to_fp32(ggml_fp32_to_fp16(src[i]));
}

JEPA_AVX2_TARGET void scaleRow(float* row, int64_t n, float by) {
  const __m256 v = _mm256_set1_ps(by);
  for (int64_t c = 0; c < n; c += 8) _mm256_storeu_ps(row + c, _mm256_mul_ps(_mm256_loadu_ps(row + c), v));
}

void attendTask(ggml_tensor* dst, int64_t item, int64_t head, int64_t q0, int64_t q1, float scale, bool kvF16, Scratch& sc) {
  const HeadView view = headView(dst, item, head);
  const int64_t d = view.d, nq = view.nq, heads = view.heads, nk = view.nk, dv = view.dv;
  const ggml_fp16_t* maskAt = view.mask;
  const int64_t maskStride = view.maskStride;

  // keys in tiles of 6, each [d][8] (slots 6 and 7 zero)
  const int64_t keyTiles = (nk + kTileRows - 1) / kTileRows;
  sc.keys.resize(static_cast<size_t>(keyTiles * d * kLda));
  sc.rounded.resize(static_cast<size_t>(kTileRows * d));
  for (int64_t i = 0; i < keyTiles; ++i) {
    const float* rows[8] = {};
    for (int r = 0; r < kTileRows; ++r) {
      const int64_t j = i * kTileRows + r;
      rows[r] = j < nk ? view.key(j) : nullptr;
      if (kvF16 && rows[r]) {
        roundThroughF16(rows[r], sc.rounded.data() + r * d, d);
        rows[r] = sc.rounded.data() + r * d;
      }
    }
    cpu::avx2::transposeRows(rows, d, sc.keys.data() + i * d * kLda, kLda);
  }
  const int64_t dvp = flash::paddedWidth(dv);
  sc.values.resize(static_cast<size_t>(nk * dvp));
  for (int64_t j = 0; j < nk; ++j) {
    const auto* value = view.value(j);
    float* row = sc.values.data() + j * dvp;
    if (kvF16)
      roundThroughF16(value, row, dv);
    else
      std::memcpy(row, value, static_cast<size_t>(dv) * sizeof(float));
    std::memset(row + dv, 0, static_cast<size_t>(dvp - dv) * sizeof(float));
  }
  sc.queries.resize(static_cast<size_t>(kQueries * d));
  sc.probs.resize(static_cast<size_t>((keyTiles * kTileRows) * kQueries));

  for (int64_t b0 = q0; b0 < q1; b0 += kQueries) {
    const int64_t rows = std::min(kQueries, q1 - b0);
    const int groups = static_cast<int>((rows + 15) / 16);
    for (int64_t h = 0; h < groups * 2; ++h) {  // 8 queries at a time into columns (h%2)·8.. of group h/2
      const float* at[8];
      for (int r = 0; r < 8; ++r) {
        const int64_t t = h * 8 + r;
        at[r] = t < rows ? view.query(b0 + t) : nullptr;
      }
      cpu::avx2::transposeRows(at, d, sc.queries.data() + (h / 2) * d * 16 + (h % 2) * 8, 16);
    }
    keyRuns(maskAt ? maskAt + b0 : nullptr, maskStride, nk, rows, sc.runs);
    // scores [key][query]: keys are the broadcast operand, 16 queries per tile
    for (const auto& [j0, j1] : sc.runs)
      for (int64_t i = j0 / kTileRows; i * kTileRows < j1; ++i) {
        const int r = static_cast<int>(std::min<int64_t>(kTileRows, nk - i * kTileRows));
        for (int g = 0; g < groups; ++g)
          cpu::avx2::kFmaTiles<float>[r](sc.keys.data() + i * d * kLda, kLda, sc.queries.data() + g * d * 16, 16, d,
                                         sc.probs.data() + i * kTileRows * kQueries + g * 16, kQueries, true);
      }
    alignas(32) float inv[kQueries];
    softmaxColumns(sc.probs.data(), maskAt ? maskAt + b0 : nullptr, maskStride, rows, sc.runs, groups, scale, inv);
    // out [query][dv] = Σ_keys probs[key][query] · v[key]: queries are the broadcast operand; a dv that
    // is not whole vectors is computed at its padded width into scratch and its first dv columns kept
    const bool padded = dvp != dv;
    if (padded) sc.out.resize(static_cast<size_t>(kTileRows * dvp));
    const int64_t ldo = padded ? dvp : heads * dv;
    for (int64_t t0 = 0; t0 < rows; t0 += kTileRows) {
      const int r = static_cast<int>(std::min<int64_t>(kTileRows, rows - t0));
      float* target = static_cast<float*>(dst->data) + ((item * nq + b0 + t0) * heads + head) * dv;
      float* out = padded ? sc.out.data() : target;
      bool first = true;  // keys in runs and blocks, each block's chain summed into the output
      for (const auto& [k0, k1] : sc.runs)
        for (int64_t j0 = k0; j0 < k1; j0 += kKeyBlock, first = false) {
          const float* a = sc.probs.data() + j0 * kQueries + t0;
          const float* b = sc.values.data() + j0 * dvp;
          const int64_t n = std::min(kKeyBlock, k1 - j0);
          for (int64_t c = 0; c < dvp; c += 16) cpu::avx2::kFmaTiles<float>[r](a, kQueries, b + c, dvp, n, out + c, ldo, first);
        }
      if (first)  // no key seen by any of these queries
        for (int t = 0; t < r; ++t) std::memset(out + t * ldo, 0, static_cast<size_t>(dvp) * sizeof(float));
      for (int t = 0; t < r; ++t) scaleRow(out + t * ldo, dvp, inv[t0 + t]);
      if (padded)
        for (int t = 0; t < r; ++t) std::memcpy(target + t * heads * dv, out + t * dvp, static_cast<size_t>(dv) * sizeof(float));
    }
  }
}

}  // namespace

const TaskFn kAvx2Task = attendTask;
#else
const TaskFn kAvx2Task = nullptr;
#endif

}  // namespace jepa::flash
