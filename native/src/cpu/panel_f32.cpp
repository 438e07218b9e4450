#include "panel_f32.h"

#include "cpu_level.h"
#include "pack_threads.h"
#include "panel_layout.h"

namespace jepa::panel::f32 {
namespace {

const Level* chosen() {
  switch (cpuLevel()) {
    case CpuLevel::Avx512: return kAvx512.run ? &kAvx512 : nullptr;
    case CpuLevel::Avx2: return kAvx2.run ? &kAvx2 : nullptr;
    default: return nullptr;
  }
}

template <typename W>
void opOf(ggml_tensor* dst, int ith, int nth, void* userdata) {
  const ggml_tensor* packed = dst->src[0];
  const ggml_tensor* x = dst->src[1];
  const int64_t k = x->ne[0];
  const int64_t rows = dst->ne[0];
  const Share share = shareOf(ggml_nrows(x), rows / kRows, ith, nth);
  if (share.empty()) return;
  const Level* level = chosen();
  const RunFn<W> run = [&] {
    if constexpr (sizeof(W) == 4)
      return level->run;
    else
      return level->runHalf;
  }();
  run(static_cast<const float*>(x->data), k, share.tok0, share.tok1, static_cast<const W*>(packed->data), share.pan0, share.pan1,
      static_cast<float*>(dst->data), rows);
  finish(*static_cast<const Epilogue*>(userdata), dst, share.tok0, share.tok1, share.pan0 * kRows, share.pan1 * kRows);
}

}  // namespace

const char* kernelName() {
  const Level* level = chosen();
  return level ? level->name : nullptr;
}

void pack(const float* src, int64_t rows, int64_t k, float* dst) {
  if (const Level* level = chosen()) return level->pack(src, rows, k, dst);
  for (int64_t p = 0; p < rows / kRows; ++p)
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t j = 0; j < k; ++j) dst[(p * k + j) * kRows + r] = src[(p * kRows + r) * k + j];
}

// 16 rows × 64 steps at a time, so the writes stay within 2 KiB.
void packHalf(const uint16_t* src, int64_t rows, int64_t k, uint16_t* dst) {
  onPackThreads(rows / kRows, k, [=](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t j0 = 0; j0 < k; j0 += 64)
        for (int64_t r = 0; r < kRows; ++r)
          for (int64_t j = j0; j < (k < j0 + 64 ? k : j0 + 64); ++j) dst[(p * k + j) * kRows + r] = src[(p * kRows + r) * k + j];
  });
}

void op(ggml_tensor* dst, int ith, int nth, void* userdata) { opOf<float>(dst, ith, nth, userdata); }
void opHalf(ggml_tensor* dst, int ith, int nth, void* userdata) { opOf<uint16_t>(dst, ith, nth, userdata); }

}  // namespace jepa::panel::f32
