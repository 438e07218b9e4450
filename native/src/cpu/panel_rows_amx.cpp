// q8_row on AMX: tdpbusd multiplies a 16-token × 64-value u8 tile by a panel's 64 × 16 s8 tile, whose
// layout is the panel's own (16 groups of 16 rows × 4 values). 32 tokens against 2 panels per step:
// tiles 0-3 hold the int32 sums, 4-5 the tokens, 6-7 the panels. Linux grants a process the tile
// data only on request (arch_prctl); without it the first tile instruction is SIGILL.
#include <cstring>
#include <vector>

#include "cpu_level.h"
#include "panel_rows.h"
#include "panel_rows_value.h"

#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#define JEPA_TARGET __attribute__((target("avx512f,avx512bw,amx-tile,amx-int8")))

namespace jepa::panel::rows {
namespace {

constexpr long kReqXcompPerm = 0x1023;  // ARCH_REQ_XCOMP_PERM
constexpr long kXtileData = 18;         // XFEATURE_XTILEDATA

struct alignas(64) TileConfig {
  uint8_t palette = 1, startRow = 0, reserved[14] = {};
  uint16_t colBytes[16] = {};
  uint8_t rows[16] = {};
};

bool grantTiles() {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool tile = (d >> 24) & 1, int8 = (d >> 25) & 1;
  return tile && int8 && syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
}

bool supported() {
  static const bool granted = grantTiles();
  return cpuLevel() == CpuLevel::Avx512 && cpuVnniAllowed() && granted;
}

JEPA_TARGET void configure() {
  TileConfig cfg;
  for (int i = 0; i < 8; ++i) {
    cfg.colBytes[i] = 64;
    cfg.rows[i] = 16;
  }
  _tile_loadconfig(&cfg);
}

// The int32 sums of a 16 × 16 tile, kept to convert the live tokens.
struct alignas(64) Sums {
  int32_t v[16][16];
};

// out's 16 columns of `live` tokens: their int32 sums in `from` to values.
JEPA_TARGET void convert(const int32_t* from, int64_t fromLd, const uint8_t* panel, int64_t k, const TokenQuant* meta, int64_t live, float* out,
                         int64_t ldo) {
  const __m512 scales = _mm512_loadu_ps(panel + scalesAt(k));
  const __m512i sums = _mm512_loadu_si512(panel + sumsAt(k));
  for (int64_t t = 0; t < live; ++t) _mm512_storeu_ps(out + t * ldo, rowValues(_mm512_loadu_si512(from + t * fromLd), meta[t], sums, scales));
}

// _tile_stored names its tile in the instruction text, so the tile number cannot be a parameter.
template <int Tile>
JEPA_TARGET inline void storeTile(void* at, int64_t strideBytes) {
  if constexpr (Tile == 0) _tile_stored(0, at, strideBytes);
  if constexpr (Tile == 1) _tile_stored(1, at, strideBytes);
  if constexpr (Tile == 2) _tile_stored(2, at, strideBytes);
  if constexpr (Tile == 3) _tile_stored(3, at, strideBytes);
}

// C tile `Tile` (token tile `T`, panel `P` of the step) through Sums to out's live tokens. (Storing
// whole tiles straight into out, a row of outputs apart, ran at half the speed.)
template <int Tile, int T, int P>
JEPA_TARGET inline void put(const uint8_t* panels, int64_t k, const TokenQuant* meta, int64_t live, float* out, int64_t ldo) {
  const int64_t here = live - 16 * T < 16 ? live - 16 * T : 16;
  Sums s;
  storeTile<Tile>(s.v, 64);
  convert(s.v[0], 16, panels + P * panelBytes(k), k, meta + 16 * T, here, out + 16 * T * ldo + P * kRows, ldo);
}

// TT token tiles (16 tokens each, laid out as tiled() makes them) against PP panels; `live` tokens of
// the 16·TT are real.
template <int TT, int PP>
JEPA_TARGET void step(const uint8_t* panels, int64_t k, const uint8_t* tiles, const TokenQuant* meta, int64_t live, float* out, int64_t ldo) {
  const int64_t kp = paddedK(k), bytes = panelBytes(k), tileBytes = kp * 16;
  _tile_zero(0);
  if constexpr (PP > 1) _tile_zero(1);
  if constexpr (TT > 1) _tile_zero(2);
  if constexpr (TT > 1 && PP > 1) _tile_zero(3);
  for (int64_t c = 0; c < kp; c += kChunk) {
    _tile_loadd(4, tiles + c * 16, kChunk);
    if constexpr (TT > 1) _tile_loadd(5, tiles + tileBytes + c * 16, kChunk);
    _tile_loadd(6, panels + c / 4 * kGroupBytes, kGroupBytes);
    if constexpr (PP > 1) _tile_loadd(7, panels + bytes + c / 4 * kGroupBytes, kGroupBytes);
    _tile_dpbusd(0, 4, 6);
    if constexpr (PP > 1) _tile_dpbusd(1, 4, 7);
    if constexpr (TT > 1) _tile_dpbusd(2, 5, 6);
    if constexpr (TT > 1 && PP > 1) _tile_dpbusd(3, 5, 7);
  }
  put<0, 0, 0>(panels, k, meta, live, out, ldo);
  if constexpr (PP > 1) put<1, 0, 1>(panels, k, meta, live, out, ldo);
  if constexpr (TT > 1) put<2, 1, 0>(panels, k, meta, live, out, ldo);
  if constexpr (TT > 1 && PP > 1) put<3, 1, 1>(panels, k, meta, live, out, ldo);
}

// The tokens as AMX reads them fastest: per 16-token tile, per 64-value chunk, 1 KiB contiguous (a
// tile loaded a whole token row apart ran at less than half the speed). Reads 16·⌈n/16⌉ rows of xq.
const uint8_t* tiled(const uint8_t* xq, int64_t kp, int64_t n) {
  thread_local std::vector<uint8_t> tiles;
  const int64_t ntiles = (n + 15) / 16;
  tiles.resize(static_cast<size_t>(ntiles * 16 * kp));
  for (int64_t tt = 0; tt < ntiles; ++tt)
    for (int64_t c = 0; c < kp; c += kChunk)
      for (int64_t r = 0; r < 16; ++r) std::memcpy(&tiles[tt * 16 * kp + c * 16 + r * kChunk], xq + (tt * 16 + r) * kp + c, kChunk);
  return tiles.data();
}

// Panels outer, tokens inner: a pair of panels (2·16·k bytes) stays in L1 while every token passes,
// and the tokens (n·k bytes) stay in L2, so each weight is read from memory once per node.
JEPA_TARGET void tokens(const uint8_t* panels, int64_t npanels, int64_t k, const uint8_t* xq, const TokenQuant* meta, int64_t n, float* out,
                        int64_t ldo) {
  const int64_t kp = paddedK(k), bytes = panelBytes(k);
  const uint8_t* tiles = tiled(xq, kp, n);
  configure();
  for (int64_t p = 0; p < npanels; p += 2) {
    const bool pair = p + 1 < npanels;
    const uint8_t* w = panels + p * bytes;
    float* o = out + p * kRows;
    for (int64_t t = 0; t < n; t += 32) {
      const int64_t live = n - t < 32 ? n - t : 32;
      const uint8_t* x = tiles + t * kp;
      if (live > 16)
        pair ? step<2, 2>(w, k, x, meta + t, live, o + t * ldo, ldo) : step<2, 1>(w, k, x, meta + t, live, o + t * ldo, ldo);
      else
        pair ? step<1, 2>(w, k, x, meta + t, live, o + t * ldo, ldo) : step<1, 1>(w, k, x, meta + t, live, o + t * ldo, ldo);
    }
  }
  _tile_release();
}

}  // namespace

const Kernel kAmx{"amx", supported, 1, quantizeToken, tokens, 0};

}  // namespace jepa::panel::rows

#else
namespace jepa::panel::rows {
const Kernel kAmx{"amx", [] { return false; }, 1, nullptr, nullptr};
}
#endif
