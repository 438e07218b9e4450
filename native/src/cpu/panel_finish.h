// A panel's epilogue over one token's outputs in SIMD lanes (panel.cpp's finish picks it where it runs).
#pragma once

#include <cstdint>

#include "panel_layout.h"

namespace jepa::panel {

// o[i] = ((gelu(o[i] + bias[i])) · scale[i]) + add[i] over n floats (n a multiple of 16), each step only where
// the epilogue has it, with the bits of finish's scalar steps and geluErfRows (with the epilogue's erf);
// the operands that are absent may be null.
using FinishRow = void (*)(float* o, const float* bias, const float* scale, const float* add, int64_t n);

// The AVX-512 form of e, or null where this CPU or build has none (no AVX-512 level, no libmvec).
FinishRow finishRowAvx512(const Epilogue& e);

}  // namespace jepa::panel
