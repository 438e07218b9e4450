// The panels of q8_row matrices (I8 weights with one f32 scale per output row) and their kernels, as
// onnxruntime's MLAS computes int8 products: each token's activations are quantized once to u8 with
// its own scale and zero point, and every output is one exact int32 dot over the whole row, scaled
// once. No per-block rescaling, so the inner loop is vpdpbusd (or AMX's tdpbusd) alone; plain AVX2
// computes the same exact dot with vpmaddubsw.
#pragma once

#include <cstdint>

namespace jepa::panel::rows {

constexpr int64_t kRows = 16;
constexpr int64_t kChunk = 64;         // k is padded with zeros to a multiple of this (one AMX tile's depth)
constexpr int64_t kMaxK = 32768;       // |Σ (u − zp)·q| < 255·127·k stays in int32
constexpr int64_t kGroupBytes = kRows * 4;  // 4 values of each of the 16 rows, the operand order of vpdpbusd

inline int64_t paddedK(int64_t k) { return (k + kChunk - 1) / kChunk * kChunk; }

// One panel: paddedK/4 groups, then the rows' f32 scales and int32 Σq (what the zero point multiplies).
inline int64_t scalesAt(int64_t k) { return paddedK(k) / 4 * kGroupBytes; }
inline int64_t sumsAt(int64_t k) { return scalesAt(k) + kRows * 4; }
inline int64_t panelBytes(int64_t k) { return sumsAt(k) + kRows * 4; }

// One token's quantization: x ≈ scale·(u − zp), u in 0..255.
struct TokenQuant {
  float scale;
  int32_t zp;
  int32_t dotBias = 0;  // added to a kernel's raw dot where it computes an offset one (plain AVX2's and AVX-512's), else 0
};

// A kernel for one instruction set. tokens: n tokens (rows of xq, paddedK·valueBytes bytes apart, n rounded
// up to 32 rows readable) against `panels` consecutive panels; token t's 16·panels results go to
// out + t·ldo. Every output is float(dot − zp·Σq)·(scale_x·scale_w) from an exact int32 dot, so all
// kernels agree bit for bit with each other and with themselves however they tile.
struct Kernel {
  const char* name;
  bool (*supported)();
  // Bytes per quantized value in the token rows it reads: 1 (u8), or 2 where the kernel reads each as
  // a magnitude and a sign mask (plain AVX2's and AVX-512's vpmaddubsw).
  int64_t valueBytes;
  // One token's k values as u8 (paddedK values of valueBytes, the padding zero) and its scale and zero
  // point, the way onnxruntime's DynamicQuantizeLinear does for a whole tensor: the range [min(0, x), max(0, x)]
  // over 255 steps, zero exact, values rounded to nearest even. The same bits on every kernel.
  void (*quantize)(const float* x, int64_t k, uint8_t* u, TokenQuant* meta);
  void (*tokens)(const uint8_t* panels, int64_t npanels, int64_t k, const uint8_t* xq, const TokenQuant* meta, int64_t n, float* out,
                 int64_t ldo);
  // Panels per tokens() call, so that the op runs the epilogue on each chunk's outputs while they are in
  // cache; 0: all of a thread's panels in one call (a kernel whose call has a cost of its own, as AMX's
  // retiling of the tokens).
  int64_t finishPanels = 12;
};

// A kernel's tile: up to T tokens against up to P consecutive panels, token t's results to out + t·ldo.
using TileFn = void (*)(const uint8_t* panels, int64_t k, const uint8_t* xq, const TokenQuant* meta, float* out, int64_t ldo);

// Kernel::tokens from tiles of kT tokens × kP panels (tileFor(t, p) for the t ≤ kT, p ≤ kP left at the
// edges), with token rows rowBytes apart: panels outer, tokens inner.
void walkTiles(TileFn (*tileFor)(int t, int p), int kT, int kP, int64_t rowBytes, const uint8_t* panels, int64_t npanels, int64_t k,
               const uint8_t* xq, const TokenQuant* meta, int64_t n, float* out, int64_t ldo);

extern const Kernel kAvx512Vnni;
extern const Kernel kAmx;
extern const Kernel kAvxVnni;
extern const Kernel kAvx512;
extern const Kernel kAvx2;

// The AVX-512 quantizer (AMX's and AVX-512 VNNI's).
void quantizeToken(const float* x, int64_t k, uint8_t* u, TokenQuant* meta);
// The AVX2 quantizer (AVX-VNNI's and plain AVX2's), with the AVX-512 one's bits.
void quantizeTokenAvx2(const float* x, int64_t k, uint8_t* u, TokenQuant* meta);
// Plain AVX2's and AVX-512's token rows (valueBytes 2): paddedK magnitudes |u − 128|, then paddedK
// masks (0xff where u < 128), with dotBias = Σ |u − 128| over u < 128.
void quantizeMagnitudesAvx2(const float* x, int64_t k, uint8_t* row, TokenQuant* meta);

}  // namespace jepa::panel::rows
