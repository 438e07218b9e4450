// The panel layout shared by q8_panel.cpp and its per-ISA kernels (not part of the addon's API).
#pragma once

#include <cstdint>

namespace jepa::q8panel {

constexpr int64_t kRows = 16;   // rows of a panel
constexpr int64_t kBlock = 32;  // values per q8_0 block
// One block of one panel: 8 groups of 4 values for 16 rows (rows interleaved by 4 bytes, the
// operand order of vpdpbusd), then the 16 rows' scales (f32) and 128·Σq per row (int32), which
// undoes the +128 that makes the activations unsigned.
constexpr int64_t kGroupBytes = kRows * 4;
constexpr int64_t kScalesAt = (kBlock / 4) * kGroupBytes;
constexpr int64_t kBiasAt = kScalesAt + kRows * 4;
constexpr int64_t kBlockBytes = kBiasAt + kRows * 4;

// Activations of one token: k bytes (q + 128), then k/32 f32 scales.
inline int64_t tokenBytes(int64_t k) { return k + (k / kBlock) * 4; }

// A kernel for one instruction set. quantize: one token's activations as ggml's q8_0 quantizes them
// (scale = max|x| / 127 per block, values rounded to nearest even), stored +128. tokens: n quantized
// tokens against one panel; token t's 16 results go to out + t·ldo. Every kernel computes each
// output by the same arithmetic (exact int32 block dots, then one f32 fma per block), so they agree
// bit for bit with each other and with themselves however tokens are tiled.
struct Kernel {
  const char* name;
  bool (*supported)();
  void (*quantize)(const float* x, int64_t k, uint8_t* q, float* d);
  void (*tokens)(const uint8_t* panel, int64_t nb, const uint8_t* scratch, int64_t k, int64_t n, float* out, int64_t ldo);
};

extern const Kernel kAvx512Vnni;
extern const Kernel kAvxVnni;

}  // namespace jepa::q8panel
