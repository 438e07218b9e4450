// ggml's CPU backend reached through its registry only, so one addon works both with ggml linked in
// statically (the -march=native and CUDA builds) and with the CPU variants loaded at run time
// (GGML_BACKEND_DL: the portable build, one libggml-cpu-<variant>.so per x86 level beside the addon).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ggml-backend.h"

namespace jepa {

// Loads the backends beside the addon (portable build; a no-op when ggml is linked in). JEPA_CPU_VARIANT
// names one variant to load instead of the best this CPU runs. Returns "" or the reason no CPU backend
// is available. JEPA_CPU=avx2 (cpu/cpu_level.h) without JEPA_CPU_VARIANT loads the best AVX2 variant
// (alderlake with AVX-VNNI, else haswell), so ggml's own ops run at that level too.
std::string loadCpuBackends();

// "native" (-march=native), "generic" (a static build without it), or the loaded variant ("haswell",
// "zen4", ...).
std::string cpuVariant();

// The CPU backend's own feature list (AVX2, AVX512, ...), as the loaded variant was compiled.
std::vector<std::pair<std::string, std::string>> cpuFeatures();

void setCpuThreads(ggml_backend_t backend, int threads);

}  // namespace jepa
