// The instruction-set level this engine's own CPU kernels run at: the best this CPU has, or a lower
// one that JEPA_CPU forces (`avx2`, `avx512`), so that every variant can be measured and tested on
// one machine. Every kernel chooser (the resampler's too) asks this before cpuid.
#pragma once

#include <string>

namespace jepa {

enum class CpuLevel { Scalar = 0, Avx2 = 1, Avx512 = 2 };

// Reads JEPA_CPU and JEPA_CPU_VNNI (once, at addon load). Returns "" or why it is refused: an unknown
// name or value, or a level this CPU cannot run.
std::string initCpuLevel();

// AVX-512: F, BW, DQ, VL. AVX2: AVX2, FMA, F16C. Scalar: neither.
CpuLevel cpuLevel();
const char* cpuLevelName(CpuLevel level);

// Whether the engine may use VNNI of any kind (AVX-512 VNNI, AVX-VNNI, AMX's int8 tiles): yes unless
// JEPA_CPU_VNNI=0, which makes this CPU look like one without (a Zen 3 or Haswell at the avx2 level,
// a Skylake-SP at avx512), so that their kernel choices can be tested on any machine.
bool cpuVnniAllowed();

// Whether the CPU has AVX-VNNI (the 256-bit VEX form), which the AVX2 level's 8-bit panels need.
bool cpuHasAvxVnni();
// Whether the CPU has AVX-512 VNNI and the level is avx512.
bool cpuHasAvx512Vnni();

}  // namespace jepa
