// q8_row on plain AVX2 (AMD Zen 2/3, Intel before Ice Lake and Alder Lake: no VNNI of any kind):
// vpmaddubsw and vpmaddwd, exact. Each token's u8 values are recentred once per matmul to c = u − 128
// (s8) and kept as magnitudes |c| (0..128, read as u8) beside sign masks m (all ones where c < 0). Each
// product is |c|·(q XOR m): q itself where c ≥ 0, and ~q = −q − 1 where c < 0, which is c·q − |c|. So
// the dot is Σ c·q less Σ_{c<0} |c|, a constant of the token added back once (dotBias). q XOR m lies
// in −128..127, so a 16-bit pair sum stays within −32768..32512 and vpmaddubsw never saturates
// (on u itself it would, at u = 255 against q = 127: onnxruntime's AVX2 int8 kernel takes that risk).
// The int32 dot Σ (u − 128)·q, + 128·Σq, is the very dot the VNNI and AMX kernels sum: the same bits.
// vpxor runs on any vector port; vpsignb (the plain sign trick, used before) only on the two that
// multiply on Intel cores, next to vpmaddubsw and vpmaddwd. Widening both sides to 16 bits for
// vpmaddwd alone, the other exact way, ran slower on Ice Lake at the AVX2 level (docs/quantization.md).
#include <cstring>

#include "cpu_level.h"
#include "panel_rows.h"
#include "panel_rows_value.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define JEPA_TARGET __attribute__((target("avx2,fma")))

namespace jepa::panel::rows {
namespace {

JEPA_TARGET float reduce(__m256 v, bool max) {
  __m128 h = max ? _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)) : _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  h = max ? _mm_max_ps(h, _mm_movehl_ps(h, h)) : _mm_min_ps(h, _mm_movehl_ps(h, h));
  h = max ? _mm_max_ss(h, _mm_movehdup_ps(h)) : _mm_min_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

}  // namespace

JEPA_TARGET void quantizeTokenAvx2(const float* x, int64_t k, uint8_t* u, TokenQuant* meta) {
  __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= k; j += 8) {
    const __m256 v = _mm256_loadu_ps(x + j);
    lo = _mm256_min_ps(lo, v);
    hi = _mm256_max_ps(hi, v);
  }
  float mn = reduce(lo, false), mx = reduce(hi, true);
  for (; j < k; ++j) {
    mn = x[j] < mn ? x[j] : mn;
    mx = x[j] > mx ? x[j] : mx;
  }
  float inv;
  *meta = tokenQuant(mn, mx, inv);
  const int32_t zp = meta->zp;
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256i vzp = _mm256_set1_epi32(zp), zero = _mm256_setzero_si256(), top = _mm256_set1_epi32(255);
  const int64_t kp = paddedK(k);
  for (j = 0; j < kp; j += 8) {
    alignas(32) float v[8] = {};
    for (int64_t i = 0; i < 8 && j + i < k; ++i) v[i] = x[j + i];
    __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_load_ps(v), vinv)), vzp);
    q = _mm256_max_epi32(_mm256_min_epi32(q, top), zero);
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), q);
    for (int64_t i = 0; i < 8; ++i) u[j + i] = j + i < k ? static_cast<uint8_t>(lanes[i]) : 0;
  }
}

// From the AVX2 quantizer's u8 bits (panel_rows.h).
JEPA_TARGET void quantizeMagnitudesAvx2(const float* x, int64_t k, uint8_t* row, TokenQuant* meta) {
  const int64_t kp = paddedK(k);
  uint8_t* masks = row + kp;
  quantizeTokenAvx2(x, k, masks, meta);
  const __m256i bias = _mm256_set1_epi8(static_cast<char>(0x80)), zero = _mm256_setzero_si256();
  __m256i negative = zero;
  for (int64_t j = 0; j < kp; j += 32) {
    const __m256i c = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(masks + j)), bias);
    const __m256i mag = _mm256_abs_epi8(c), m = _mm256_cmpgt_epi8(zero, c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + j), mag);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(masks + j), m);
    negative = _mm256_add_epi64(negative, _mm256_sad_epu8(_mm256_and_si256(mag, m), zero));
  }
  alignas(32) int64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), negative);
  meta->dotBias = static_cast<int32_t>(lanes[0] + lanes[1] + lanes[2] + lanes[3]);
}

namespace {

JEPA_TARGET inline __m256i broadcast4(const uint8_t* v) {
  int32_t four;
  std::memcpy(&four, v, sizeof four);
  return _mm256_set1_epi32(four);
}

// One token's 4 values against the two weight halves of a group: 2 × 8 rows of int32 partial sums.
#define JEPA_STEP(t, lo, hi)                                                                    \
  {                                                                                             \
    const __m256i mag = broadcast4(xq + (t) * 2 * kp + g * 4);                                  \
    const __m256i neg = broadcast4(xq + (t) * 2 * kp + kp + g * 4);                             \
    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_maddubs_epi16(mag, _mm256_xor_si256(w0, neg)), ones)); \
    hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_maddubs_epi16(mag, _mm256_xor_si256(w1, neg)), ones)); \
  }

JEPA_TARGET inline void finish(__m256i dot, const TokenQuant& meta, const uint8_t* panel, int64_t k, int h, float* out) {
  const __m256 scales = _mm256_loadu_ps(reinterpret_cast<const float*>(panel + scalesAt(k)) + 8 * h);
  const __m256i sums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + sumsAt(k)) + h);
  // + Σ_{c<0} |c|: the dot of c; + 128·Σq: the dot of u itself
  const __m256i exact = _mm256_add_epi32(_mm256_add_epi32(dot, _mm256_set1_epi32(meta.dotBias)), _mm256_slli_epi32(sums, 7));
  _mm256_storeu_ps(out + 8 * h, rowValues8(exact, meta, sums, scales));
}

// T (1 to 4) tokens against one panel (two ymm halves of 8 rows). Named accumulators, not an array:
// GCC spilled an array's to the stack every iteration.
template <int T>
JEPA_TARGET void tile(const uint8_t* panel, int64_t k, const uint8_t* xq, const TokenQuant* meta, float* out, int64_t ldo) {
  const int64_t kp = paddedK(k);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i a0 = _mm256_setzero_si256(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0;
  for (int64_t g = 0; g < kp / 4; ++g) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes + 32));
    JEPA_STEP(0, a0, b0)
    if constexpr (T > 1) JEPA_STEP(1, a1, b1)
    if constexpr (T > 2) JEPA_STEP(2, a2, b2)
    if constexpr (T > 3) JEPA_STEP(3, a3, b3)
    // keeps each accumulator in one register (GCC otherwise adds into a fresh one and copies it back)
    asm("" : "+x"(a0), "+x"(b0), "+x"(a1), "+x"(b1), "+x"(a2), "+x"(b2), "+x"(a3), "+x"(b3));
  }
  const __m256i lo[4] = {a0, a1, a2, a3}, hi[4] = {b0, b1, b2, b3};
  for (int t = 0; t < T; ++t) {
    finish(lo[t], meta[t], panel, k, 0, out + t * ldo);
    finish(hi[t], meta[t], panel, k, 1, out + t * ldo);
  }
}
#undef JEPA_STEP

constexpr TileFn kTiles[5] = {nullptr, tile<1>, tile<2>, tile<3>, tile<4>};
constexpr TileFn tileFor(int t, int) { return kTiles[t]; }

void tokens(const uint8_t* panels, int64_t npanels, int64_t k, const uint8_t* xq, const TokenQuant* meta, int64_t n, float* out, int64_t ldo) {
  walkTiles(tileFor, 4, 1, 2 * paddedK(k), panels, npanels, k, xq, meta, n, out, ldo);
}

bool supported() { return cpuLevel() >= CpuLevel::Avx2; }

}  // namespace

const Kernel kAvx2{"avx2", supported, 2, quantizeMagnitudesAvx2, tokens};

}  // namespace jepa::panel::rows

#else
namespace jepa::panel::rows {
const Kernel kAvx2{"avx2", [] { return false; }, 2, nullptr, nullptr};
}
#endif
