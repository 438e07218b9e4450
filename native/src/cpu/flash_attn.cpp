#include "flash_attn.h"
#include "flash_attn_parts.h"
#include "cpu_level.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#if defined(JEPA_HAVE_MVEC) && defined(__x86_64__)
#include "fma_tile.h"
#define JEPA_FLASH_CPU 1
// glibc's vector-ABI expf, 16 lanes.
extern "C" __m512 _ZGVeN16v_expf(__m512);
#endif

namespace jepa {

#if JEPA_FLASH_CPU
namespace {

using cpu::kTileRows;
using flash::kKeyBlock;
using flash::kQueries;
using flash::HeadView;
using flash::headView;
using flash::KeyRuns;
using flash::Scratch;

// Whether keys [j0, j1) are -inf for every one of `rows` queries (mask: the block's first query).
__attribute__((target("avx512f,avx512bw"))) bool allMasked(const ggml_fp16_t* mask, int64_t stride, int64_t j0, int64_t j1, int64_t rows) {
  const __m512i minusInf = _mm512_set1_epi16(static_cast<short>(0xFC00));
  for (int64_t j = j0; j < j1; ++j)
    for (int64_t t = 0; t < rows; t += 32) {
      const int64_t n = std::min<int64_t>(32, rows - t);
      const __mmask32 lanes = n == 32 ? 0xFFFFFFFFu : (1u << n) - 1;
      if (_mm512_mask_cmpneq_epi16_mask(lanes, _mm512_maskz_loadu_epi16(lanes, mask + j * stride + t), minusInf)) return false;
    }
  return true;
}

// The block's key runs, in whole tiles of 8 keys: a block-causal mask hides about half of them.
void keyRuns(const ggml_fp16_t* mask, int64_t stride, int64_t nk, int64_t rows, KeyRuns& runs) {
  runs.clear();
  for (int64_t j0 = 0; j0 < nk; j0 += kTileRows) {
    const int64_t j1 = std::min(nk, j0 + kTileRows);
    if (mask && allMasked(mask, stride, j0, j1, rows)) continue;
    if (!runs.empty() && runs.back().second == j0)
      runs.back().second = j1;
    else
      runs.emplace_back(j0, j1);
  }
}

// For each of a block's 16-query groups: softmax down the columns of probs (scores ·scale + mask) over
// the key runs, in place; returns the inverse column sums (0 for a column that sees no key) in inv.
// mask: the block's first query in row 0 of a key-major F16 mask (key j's row at j·maskStride),
// valid for `rows` queries.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void softmaxColumns(float* probs, const ggml_fp16_t* mask, int64_t maskStride, int64_t rows,
                                                                          const KeyRuns& runs, int groups, float scale, float* sums) {
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
        const __m512 p = _ZGVeN16v_expf(_mm512_sub_ps(_mm512_loadu_ps(col + j * kQueries), vmax));
        _mm512_storeu_ps(col + j * kQueries, p);
        vsum = _mm512_add_ps(vsum, p);
      }
    const __m512 inv = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(vsum, _mm512_setzero_ps(), _CMP_NEQ_OQ), _mm512_set1_ps(1.0f), vsum);
    _mm512_storeu_ps(sums + g * 16, inv);
  }
}

// dst = src rounded through f16 (to nearest even, as ggml_cast rounds): the F16 K/V policy.
__attribute__((target("avx512f"))) void roundThroughF16(const float* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
  for (; i < n; ++i) dst[i] = ggml_fp16_to_fp32(ggml_fp32_to_fp16(src[i]));
}

__attribute__((target("avx512f"))) void scaleRow(float* row, int64_t n, float by) {
  const __m512 v = _mm512_set1_ps(by);
  for (int64_t c = 0; c < n; c += 16) _mm512_storeu_ps(row + c, _mm512_mul_ps(_mm512_loadu_ps(row + c), v));
}

void attendTask(ggml_tensor* dst, int64_t item, int64_t head, int64_t q0, int64_t q1, float scale, bool kvF16, Scratch& sc) {
  const HeadView view = headView(dst, item, head);
  const int64_t d = view.d, nq = view.nq, heads = view.heads, nk = view.nk, dv = view.dv;
  const ggml_fp16_t* maskAt = view.mask;
  const int64_t maskStride = view.maskStride;

  const int64_t keyTiles = (nk + kTileRows - 1) / kTileRows;
  sc.keys.resize(static_cast<size_t>(keyTiles * d * kTileRows));
  sc.rounded.resize(static_cast<size_t>(kTileRows * d));
  for (int64_t i = 0; i < keyTiles; ++i) {
    const float* rows[8];
    for (int r = 0; r < 8; ++r) {
      const int64_t j = i * kTileRows + r;
      rows[r] = j < nk ? view.key(j) : nullptr;
      if (kvF16 && rows[r]) {
        roundThroughF16(rows[r], sc.rounded.data() + r * d, d);
        rows[r] = sc.rounded.data() + r * d;
      }
    }
    cpu::transposeRows(rows, d, sc.keys.data() + i * d * kTileRows, kTileRows);
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
  sc.probs.resize(static_cast<size_t>(nk * kQueries));

  for (int64_t b0 = q0; b0 < q1; b0 += kQueries) {
    const int64_t rows = std::min(kQueries, q1 - b0);
    const int groups = static_cast<int>((rows + 15) / 16);
    for (int64_t h = 0; h < groups * 2; ++h) {  // 8 queries at a time into columns (h%2)·8.. of group h/2
      const float* at[8];
      for (int r = 0; r < 8; ++r) {
        const int64_t t = h * 8 + r;
        at[r] = t < rows ? view.query(b0 + t) : nullptr;
      }
      cpu::transposeRows(at, d, sc.queries.data() + (h / 2) * d * 16 + (h % 2) * 8, 16);
    }
    keyRuns(maskAt ? maskAt + b0 : nullptr, maskStride, nk, rows, sc.runs);
    // scores [key][query]: keys are the broadcast operand, 16 queries per vector
    for (const auto& [j0, j1] : sc.runs)
      for (int64_t i = j0 / kTileRows; i * kTileRows < j1; ++i) {
        const int r = static_cast<int>(std::min<int64_t>(kTileRows, nk - i * kTileRows));
        cpu::kFmaTiles[groups][r](sc.keys.data() + i * d * kTileRows, kTileRows, sc.queries.data(), d * 16, 16, d,
                                  sc.probs.data() + i * kTileRows * kQueries, kQueries, true);
      }
    alignas(64) float inv[kQueries];
    softmaxColumns(sc.probs.data(), maskAt ? maskAt + b0 : nullptr, maskStride, rows, sc.runs, groups, scale, inv);
    // out [query][dv] = Σ_keys probs[key][query] · v[key]: queries are the broadcast operand; a dv of
    // 64s takes tiles of 6 queries × 64 outputs, any other multiple of 16 tiles of 8 × up to 48. A dv that
    // is not whole vectors is computed at its padded width into scratch and its first dv columns kept.
    const bool padded = dvp != dv;
    const bool wide = dvp % 64 == 0;
    const int64_t tileRows = wide ? cpu::kWideTileRows : kTileRows;
    if (padded) sc.out.resize(static_cast<size_t>(tileRows * dvp));
    const int64_t ldo = padded ? dvp : heads * dv;
    for (int64_t t0 = 0; t0 < rows; t0 += tileRows) {
      const int r = static_cast<int>(std::min<int64_t>(tileRows, rows - t0));
      float* target = static_cast<float*>(dst->data) + ((item * nq + b0 + t0) * heads + head) * dv;
      float* out = padded ? sc.out.data() : target;
      bool first = true;  // keys in runs and blocks, each block's chain summed into the output
      for (const auto& [k0, k1] : sc.runs)
        for (int64_t j0 = k0; j0 < k1; j0 += kKeyBlock, first = false) {
          const float* a = sc.probs.data() + j0 * kQueries + t0;
          const float* b = sc.values.data() + j0 * dvp;
          const int64_t n = std::min(kKeyBlock, k1 - j0);
          if (wide)
            for (int64_t g = 0; g < dvp / 16; g += 4) cpu::kFmaTiles4[r](a, kQueries, b + g * 16, 16, dvp, n, out + g * 16, ldo, first);
          else
            cpu::fmaRow(a, kQueries, r, b, dvp / 16, 16, dvp, n, out, ldo, first);
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

namespace flash {
const TaskFn kAvx512Task = attendTask;
}
#else
namespace flash {
const TaskFn kAvx512Task = nullptr;
}
#endif

namespace {

flash::TaskFn chosenTask() {
  switch (cpuLevel()) {
    case CpuLevel::Avx512: return flash::kAvx512Task;
    case CpuLevel::Avx2: return flash::kAvx2Task;
    default: return nullptr;
  }
}

void flashOp(ggml_tensor* dst, int ith, int nth, void* userdata) {
  static const flash::TaskFn attend = chosenTask();
  // the scale travels as its bits in the low half of the pointer, the K/V policy in bit 32
  const auto word = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(userdata));
  const auto bits = static_cast<uint32_t>(word);
  const bool kvF16 = (word >> 32) & 1;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const ggml_tensor* q = dst->src[0];
  const int64_t nq = q->ne[1], heads = q->ne[2], items = q->ne[3];
  // A task packs its head's keys, so split heads into chunks of queries only to give every thread work.
  const int64_t chunks = std::min((nq + flash::kQueries - 1) / flash::kQueries, (2 * nth + heads * items - 1) / (heads * items));
  thread_local flash::Scratch sc;
  for (int64_t task = ith; task < items * heads * chunks; task += nth) {
    const int64_t c = task % chunks, head = (task / chunks) % heads, item = task / (chunks * heads);
    attend(dst, item, head, nq * c / chunks, nq * (c + 1) / chunks, scale, kvF16, sc);
  }
}

}  // namespace

const char* flashAttnCpuKernel() {
  const CpuLevel level = cpuLevel();
  return chosenTask() ? cpuLevelName(level) : nullptr;
}

ggml_tensor* flashAttnCpu(ggml_context* ctx, ggml_tensor* q, ggml_tensor* k, ggml_tensor* v, ggml_tensor* mask, float scale, bool kvF16) {
  ggml_tensor* args[4] = {q, k, v, mask};
  uint32_t bits;
  std::memcpy(&bits, &scale, sizeof bits);
  ggml_tensor* out = ggml_custom_4d(ctx, GGML_TYPE_F32, v->ne[0], q->ne[2], q->ne[1], q->ne[3], args, mask ? 4 : 3, flashOp, GGML_N_TASKS_MAX,
                                    reinterpret_cast<void*>(static_cast<uintptr_t>(bits | (kvF16 ? uint64_t{1} << 32 : 0))));
  return ggml_set_name(out, "FLASH_ATTN_CPU");  // what Graph.ops() reports
}

}  // namespace jepa
