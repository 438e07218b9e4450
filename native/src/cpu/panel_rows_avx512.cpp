// q8_row on AVX-512 VNNI: 6 tokens against 4 panels per tile (24 accumulators, one broadcast of 4
// activation bytes feeding 4 vpdpbusd), smaller tiles for what is left; and the token quantizer.
#include <cstring>

#include "cpu_level.h"
#include "panel_rows.h"
#include "panel_rows_value.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define JEPA_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))

namespace jepa::panel::rows {

JEPA_TARGET void quantizeToken(const float* x, int64_t k, uint8_t* u, TokenQuant* meta) {
  __m512 lo = _mm512_setzero_ps(), hi = _mm512_setzero_ps();  // the range always holds 0
  int64_t j = 0;
  for (; j + 16 <= k; j += 16) {
    const __m512 v = _mm512_loadu_ps(x + j);
    lo = _mm512_min_ps(lo, v);
    hi = _mm512_max_ps(hi, v);
  }
  float mn = _mm512_reduce_min_ps(lo), mx = _mm512_reduce_max_ps(hi);
  for (; j < k; ++j) {
    mn = x[j] < mn ? x[j] : mn;
    mx = x[j] > mx ? x[j] : mx;
  }
  float inv;
  *meta = tokenQuant(mn, mx, inv);
  const int32_t zp = meta->zp;
  const __m512 vinv = _mm512_set1_ps(inv);
  const __m512i vzp = _mm512_set1_epi32(zp), zero = _mm512_setzero_si512(), top = _mm512_set1_epi32(255);
  const int64_t kp = paddedK(k);
  for (j = 0; j < kp; j += 16) {
    const __mmask16 live = j + 16 <= k ? 0xFFFF : j >= k ? 0 : static_cast<__mmask16>((1u << (k - j)) - 1);
    const __m512 v = _mm512_maskz_loadu_ps(live, x + j);
    __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(v, vinv)), vzp);
    q = _mm512_maskz_max_epi32(live, _mm512_min_epi32(q, top), zero);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(u + j), _mm512_cvtepi32_epi8(q));
  }
}

namespace {

template <int T, int P>
JEPA_TARGET void tile(const uint8_t* panels, int64_t k, const uint8_t* xq, const TokenQuant* meta, float* out, int64_t ldo) {
  const int64_t kp = paddedK(k), bytes = panelBytes(k);
  __m512i acc[T * P];
#pragma GCC unroll 32
  for (int i = 0; i < T * P; ++i) acc[i] = _mm512_setzero_si512();
  for (int64_t g = 0; g < kp / 4; ++g) {
    __m512i w[P];
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) w[p] = _mm512_loadu_si512(panels + p * bytes + g * kGroupBytes);
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) {
      int32_t four;
      std::memcpy(&four, xq + t * kp + g * 4, sizeof four);
      const __m512i x = _mm512_set1_epi32(four);
#pragma GCC unroll 4
      for (int p = 0; p < P; ++p) acc[t * P + p] = _mm512_dpbusd_epi32(acc[t * P + p], x, w[p]);
    }
  }
  // The sums leave the registers before their conversion, which GCC would otherwise plan for by
  // keeping the accumulators on the stack through the whole loop.
  alignas(64) int32_t dots[T * P][16];
#pragma GCC unroll 32
  for (int i = 0; i < T * P; ++i) _mm512_store_si512(dots[i], acc[i]);
  for (int p = 0; p < P; ++p) {
    const __m512 scales = _mm512_loadu_ps(panels + p * bytes + scalesAt(k));
    const __m512i sums = _mm512_loadu_si512(panels + p * bytes + sumsAt(k));
    for (int t = 0; t < T; ++t) _mm512_storeu_ps(out + t * ldo + p * 16, rowValues(_mm512_load_si512(dots[t * P + p]), meta[t], sums, scales));
  }
}

constexpr int kT = 6, kP = 4;

template <int P>
constexpr TileFn tileOf(int t) {
  return t == 1 ? tile<1, P> : t == 2 ? tile<2, P> : t == 3 ? tile<3, P> : t == 4 ? tile<4, P> : t == 5 ? tile<5, P> : tile<6, P>;
}
constexpr TileFn tileFor(int t, int p) { return p == 1 ? tileOf<1>(t) : p == 2 ? tileOf<2>(t) : p == 3 ? tileOf<3>(t) : tileOf<4>(t); }

void tokens(const uint8_t* panels, int64_t npanels, int64_t k, const uint8_t* xq, const TokenQuant* meta, int64_t n, float* out, int64_t ldo) {
  walkTiles(tileFor, kT, kP, paddedK(k), panels, npanels, k, xq, meta, n, out, ldo);
}

bool supported() {
  __builtin_cpu_init();
  return cpuHasAvx512Vnni();
}

}  // namespace

const Kernel kAvx512Vnni{"avx512-vnni", supported, 1, quantizeToken, tokens};

}  // namespace jepa::panel::rows

#else
namespace jepa::panel::rows {
void quantizeToken(const float*, int64_t, uint8_t*, TokenQuant*) {}
const Kernel kAvx512Vnni{"avx512-vnni", [] { return false; }, 1, nullptr, nullptr};
}  // namespace jepa::panel::rows
#endif
