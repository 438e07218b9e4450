#include "cpu_level.h"

#include <cstdlib>
#include <cstring>

namespace jepa {
namespace {

CpuLevel detected() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    return CpuLevel::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) return CpuLevel::Avx2;
#endif
  return CpuLevel::Scalar;
}

CpuLevel level = detected();
bool vnniAllowed = true;

}  // namespace

std::string initCpuLevel() {
  const CpuLevel best = detected();
  level = best;
  const char* vnni = std::getenv("JEPA_CPU_VNNI");
  vnniAllowed = true;
  if (vnni && *vnni) {
    if (std::strcmp(vnni, "0") != 0 && std::strcmp(vnni, "1") != 0) return "JEPA_CPU_VNNI=" + std::string(vnni) + ": not 0 or 1";
    vnniAllowed = std::strcmp(vnni, "1") == 0;
  }
  const char* forced = std::getenv("JEPA_CPU");
  if (!forced || !*forced) return "";
  CpuLevel want;
  if (std::strcmp(forced, "avx2") == 0)
    want = CpuLevel::Avx2;
  else if (std::strcmp(forced, "avx512") == 0)
    want = CpuLevel::Avx512;
  else
    return "JEPA_CPU=" + std::string(forced) + ": not a level (avx2, avx512)";
  if (want > best) return "JEPA_CPU=" + std::string(forced) + ": this CPU runs " + cpuLevelName(best) + " at most";
  level = want;
  return "";
}

CpuLevel cpuLevel() { return level; }

const char* cpuLevelName(CpuLevel l) {
  switch (l) {
    case CpuLevel::Avx512: return "avx512";
    case CpuLevel::Avx2: return "avx2";
    default: return "scalar";
  }
}

bool cpuVnniAllowed() { return vnniAllowed; }

bool cpuHasAvxVnni() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return vnniAllowed && __builtin_cpu_supports("avxvnni");
#else
  return false;
#endif
}

bool cpuHasAvx512Vnni() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return vnniAllowed && level == CpuLevel::Avx512 && __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

}  // namespace jepa
