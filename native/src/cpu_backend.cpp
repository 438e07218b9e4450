#include "cpu_backend.h"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>

#include "cpu/cpu_level.h"

namespace jepa {

namespace {

ggml_backend_reg_t cpuReg() {
  ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
  return dev ? ggml_backend_dev_backend_reg(dev) : nullptr;
}

#ifdef GGML_BACKEND_DL
std::string ownDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&loadCpuBackends), &info) == 0 || !info.dli_fname) return ".";
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string variantsIn(const std::string& dir) {
  std::string names;
  const std::string prefix = "libggml-cpu-";
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string f = e->d_name;
      if (f.rfind(prefix, 0) != 0 || f.size() < prefix.size() + 4 || f.compare(f.size() - 3, 3, ".so") != 0) continue;
      names += (names.empty() ? "" : ", ") + f.substr(prefix.size(), f.size() - prefix.size() - 3);
    }
    closedir(d);
  }
  return names.empty() ? "none" : names;
}

int findLoadedVariant(dl_phdr_info* info, size_t, void* out) {
  const char* base = info->dlpi_name ? std::strrchr(info->dlpi_name, '/') : nullptr;
  const char* name = base ? base + 1 : info->dlpi_name;
  const char* prefix = "libggml-cpu-";
  if (!name || std::strncmp(name, prefix, std::strlen(prefix)) != 0) return 0;
  std::string variant = name + std::strlen(prefix);
  const size_t dot = variant.find(".so");
  *static_cast<std::string*>(out) = dot == std::string::npos ? variant : variant.substr(0, dot);
  return 1;
}

// JEPA_CPU=avx2 or JEPA_CPU_VNNI=0 without JEPA_CPU_VARIANT: ggml's own ops at that level too, as on an
// AVX2 laptop (alderlake with AVX-VNNI, else haswell) or, at avx512 without VNNI, a Skylake-SP.
const char* levelVariant() {
  const char* level = std::getenv("JEPA_CPU");
  const bool lowered = level && std::strcmp(level, "avx2") == 0;
  if (!lowered && cpuVnniAllowed()) return nullptr;
  if (cpuLevel() == CpuLevel::Avx512) return "skylakex";
  if (cpuLevel() == CpuLevel::Avx2) return cpuHasAvxVnni() ? "alderlake" : "haswell";
  return nullptr;
}
#endif

}  // namespace

std::string loadCpuBackends() {
#ifdef GGML_BACKEND_DL
  const std::string dir = ownDirectory();
  const char* forced = std::getenv("JEPA_CPU_VARIANT");
  std::string by = "JEPA_CPU_VARIANT=";
  if (!forced || !*forced) {
    forced = levelVariant();
    by = std::string(cpuVnniAllowed() ? "JEPA_CPU=avx2" : "JEPA_CPU_VNNI=0") + " (ggml's variant ";
  }
  if (forced && *forced) {
    const std::string path = dir + "/libggml-cpu-" + forced + ".so";
    const std::string who = by + forced + (by[by.size() - 1] == '=' ? "" : ")");
    struct stat st{};
    if (stat(path.c_str(), &st) != 0) return who + ": no " + path + " (there are: " + variantsIn(dir) + ")";
    if (!ggml_backend_load(path.c_str())) return who + ": this CPU cannot run that variant (" + path + ")";
    // the forced variant is the only CPU backend: loading the best one as well would register a second
    return "";
  }
  ggml_backend_load_all_from_path(dir.c_str());
  if (!cpuReg()) return "no ggml CPU backend in " + dir + " runs on this CPU (libggml-cpu-*.so missing?)";
#endif
  return "";
}

std::string cpuVariant() {
#ifdef GGML_BACKEND_DL
  std::string variant;
  dl_iterate_phdr(findLoadedVariant, &variant);
  return variant.empty() ? "none" : variant;
#elif JEPA_BUILD_NATIVE
  return "native";
#else
  return "generic";
#endif
}

std::vector<std::pair<std::string, std::string>> cpuFeatures() {
  std::vector<std::pair<std::string, std::string>> out;
  ggml_backend_reg_t reg = cpuReg();
  if (!reg) return out;
  using get_features_t = ggml_backend_feature* (*)(ggml_backend_reg_t);
  auto get = reinterpret_cast<get_features_t>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_get_features"));
  if (!get) return out;
  for (ggml_backend_feature* f = get(reg); f && f->name; ++f) out.emplace_back(f->name, f->value ? f->value : "");
  return out;
}

void setCpuThreads(ggml_backend_t backend, int threads) {
  ggml_backend_reg_t reg = cpuReg();
  auto set = reg ? reinterpret_cast<ggml_backend_set_n_threads_t>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads"))
                 : nullptr;
  if (set) set(backend, threads);
}

}  // namespace jepa
