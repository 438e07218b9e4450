#include "flash_attn.h"
#include "flash_attn_parts.h"
#include "cpu_level.h"

#include <algorithm>
#include <cstring>

namespace jepa {

namespace {

flash::TaskFn chosenTask() {
  switch (cpuLevel()) {
    case CpuLevel::Avx512: return flash::kAvx512Task;
    case CpuLevel::Avx2: return flash::kAvx2Task;
    default: return nullptr;
  }
}

void flashOp(ggml_tensor* dst, int ith, int nth, void* userdata) {
  static const flash::TaskFn attend = chosenTask();
  // the scale travels as its bits in the low half of the pointer, the K/V policy in bit 32
  const auto word = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(userdata));
  const auto bits = static_cast<uint32_t>(word);
  const bool kvF16 = (word >> 32) & 1;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const ggml_tensor* q = dst->src[0];
  const int64_t nq = q->ne[1], heads = q->ne[2], items = q->ne[3];
  // A task packs its head's keys, so split heads into chunks of queries only to give every thread work.
  const int64_t chunks = std::min((nq + flash::kQueries - 1) / flash::kQueries, (2 * nth + heads * items - 1) / (heads * items));
  thread_local flash::Scratch sc;
  for (int64_t task = ith; task < items * heads * chunks; task += nth) {
    const int64_t c = task % chunks, head = (task / chunks) % heads, item = task / (chunks * heads);
    attend(dst, item, head, nq * c / chunks, nq * (c + 1) / chunks, scale, kvF16, sc);
  }
}

}  // namespace

const char* flashAttnCpuKernel() {
  const CpuLevel level = cpuLevel();
  return chosenTask() ? cpuLevelName(level) : nullptr;
}

ggml_tensor* flashAttnCpu(ggml_context* ctx, ggml_tensor* q, ggml_tensor* k, ggml_tensor* v, ggml_tensor* mask, float scale, bool kvF16) {
  ggml_tensor* args[4] = {q, k, v, mask};
  uint32_t bits;
  std::memcpy(&bits, &scale, sizeof bits);
  ggml_tensor* out = ggml_custom_4d(ctx, GGML_TYPE_F32, v->ne[0], q->ne[2], q->ne[1], q->ne[3], args, mask ? 4 : 3, flashOp, GGML_N_TASKS_MAX,
                                    reinterpret_cast<void*>(static_cast<uintptr_t>(bits | (kvF16 ? uint64_t{1} << 32 : 0))));
  return ggml_set_name(out, "FLASH_ATTN_CPU");  // what Graph.ops() reports
}

}  // namespace jepa
