// The panel layouts shared by panel.cpp and its per-ISA kernels (not part of the addon's API).
#pragma once

#include <cstdint>

#include "ggml.h"

namespace jepa::panel {

constexpr int64_t kRows = 16;   // rows of a panel
constexpr int64_t kBlock = 32;  // values per block: one scale (and, for 4-bit, one min) per row

// 8-bit block (from q8_0): 8 groups of 4 values for 16 rows, rows interleaved by 4 bytes (the
// operand order of vpdpbusd), then the rows' f32 scales and int32 128·Σq, which undoes the +128
// that makes the activations unsigned. w = scale·q, q signed.
namespace q8 {
constexpr int64_t kGroupBytes = kRows * 4;
constexpr int64_t kScalesAt = (kBlock / 4) * kGroupBytes;
constexpr int64_t kBiasAt = kScalesAt + kRows * 4;
constexpr int64_t kBlockBytes = kBiasAt + kRows * 4;
}  // namespace q8

// 4-bit block (from q4_0, q4_K): 8 groups of 32 bytes whose low nibbles hold rows 0-7 and high
// nibbles rows 8-15 in the 8-bit order, then f32 scales, f32 mins and int32 128·Σq per row.
// w = scale·q − min, q in 0..15.
namespace q4 {
constexpr int64_t kGroupBytes = kRows * 2;
constexpr int64_t kScalesAt = (kBlock / 4) * kGroupBytes;
constexpr int64_t kMinsAt = kScalesAt + kRows * 4;
constexpr int64_t kBiasAt = kMinsAt + kRows * 4;
constexpr int64_t kBlockBytes = kBiasAt + kRows * 4;
}  // namespace q4

// Activations of one token: k bytes (q + 128), k/32 f32 scales and, for 4-bit weights, k/32 f32
// scale·Σq (what the weights' mins multiply). Split (plain AVX2's 8-bit rows): k magnitudes |q|, k
// sign masks (0xff where q < 0), the k/32 scales and k/32 int32 Σ|q| over q < 0.
inline int64_t tokenBytes(int64_t k, bool sums, bool split = false) { return (split ? 2 * k : k) + (k / kBlock) * (sums || split ? 8 : 4); }

// A kernel for one instruction set. quantize: one token's activations as ggml's q8_0 quantizes them
// (scale = max|x| / 127 per block, values rounded to nearest even), stored +128, with the sums when
// `sums`. tokens8 / tokens4: n quantized tokens against one 8-bit / 4-bit panel; token t's 16
// results go to out + t·ldo. Every kernel computes each output by the same arithmetic (exact int32
// block dots, then f32 fma per block), so they agree bit for bit with each other and with
// themselves however tokens are tiled.
struct Kernel {
  const char* name;
  bool (*supported)();
  void (*quantize)(const float* x, int64_t k, uint8_t* q, bool sums);
  void (*tokens8)(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo);
  void (*tokens4)(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo);
  // The same against kWidePanels consecutive panels at once (each token's broadcast feeds them all), or
  // null: token t's 16·kWidePanels results go to out + t·ldo.
  void (*wide8)(const uint8_t* panels, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo);
  void (*wide4)(const uint8_t* panels, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo);
  // quantize writes 8-bit tokens (sums false) in the split layout (tokenBytes), and tokens8 reads it.
  bool split8 = false;
};

constexpr int64_t kWidePanels = 3;

// A kernel's tile: `T` tokens (scratch rows) against one panel, results to out + t·ldo.
using TileFn = void (*)(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, float* out, int64_t ldo);

// Kernel::tokens8 / tokens4 from a kernel's tiles: tiles of Wide tokens, then single ones.
template <bool Four, int Wide, TileFn Full, TileFn One>
void runTokens(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo) {
  const int64_t stride = tokenBytes(k, Four);
  int64_t t = 0;
  for (; t + Wide <= n; t += Wide) Full(panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
  for (; t < n; ++t) One(panel, nb, scratch + t * stride, k, out + t * ldo, ldo);
}

// What a panel op does to its outputs once their sums are final, in the order of the nodes it
// replaces, so each value is the one they would make: + bias, GELU(erf), · scale (a layer scale),
// then added to `add` (the residual). The operands follow the panel and x in dst->src, in that
// order, those present only. rationalErf: the GELU takes gelu_erf.h's GeluErf::Rational.
struct Epilogue {
  bool bias, gelu, scale, add, rationalErf;
};
constexpr int kEpilogues = 32;
constexpr Epilogue epilogueAt(int i) { return {(i & 1) != 0, (i & 2) != 0, (i & 4) != 0, (i & 8) != 0, (i & 16) != 0}; }
constexpr int epilogueIndex(Epilogue e) {
  return (e.bias ? 1 : 0) | (e.gelu ? 2 : 0) | (e.scale ? 4 : 0) | (e.add ? 8 : 0) | (e.rationalErf ? 16 : 0);
}

// A thread's share of a panel node: tokens [tok0, tok1) × panels [pan0, pan1). Whole tokens per thread
// when each gets at least 8, else whole panels, so every output is made by one thread running the
// same code, whatever the split.
struct Share {
  int64_t tok0, tok1, pan0, pan1;
  bool empty() const { return tok0 >= tok1 || pan0 >= pan1; }
};
inline Share shareOf(int64_t tokens, int64_t panels, int ith, int nth) {
  if (tokens >= 8 * nth) return {tokens * ith / nth, tokens * (ith + 1) / nth, 0, panels};
  return {0, tokens, panels * ith / nth, panels * (ith + 1) / nth};
}

// Applies e to dst's outputs of tokens [t0, t1), rows [r0, r1) (panel.cpp).
void finish(const Epilogue& e, const ggml_tensor* dst, int64_t t0, int64_t t1, int64_t r0, int64_t r1);

extern const Kernel kAvx512Vnni;
extern const Kernel kAvxVnni;
extern const Kernel kAvx2;

// Kernel::quantize in AVX2 (AVX-VNNI's and plain AVX2's).
void quantizeBlocksAvx2(const float* x, int64_t k, uint8_t* q, bool sums);

}  // namespace jepa::panel
