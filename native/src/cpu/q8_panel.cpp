#include "q8_panel.h"

#include <cstring>
#include <vector>

#include "q8_panel_layout.h"

namespace jepa {
namespace {

using q8panel::Kernel;

struct BlockQ8 {
  ggml_fp16_t d;
  int8_t qs[q8panel::kBlock];
};
static_assert(sizeof(BlockQ8) == 34, "block_q8_0 is a 2-byte scale and 32 int8 values");

const Kernel* const kKernels[] = {&q8panel::kAvx512Vnni, &q8panel::kAvxVnni};  // fastest first

const Kernel* findKernel(const char* name) {
  for (const Kernel* k : kKernels)
    if (std::strcmp(k->name, name) == 0 && k->supported()) return k;
  return nullptr;
}

// Work split: whole tokens per thread when there are enough of them, else whole panels, so that
// each output is still produced by one thread running the same code.
void q8PanelOp(ggml_tensor* dst, int ith, int nth, void* userdata) {
  const auto* kernel = static_cast<const Kernel*>(userdata);
  const ggml_tensor* panelT = dst->src[0];
  const ggml_tensor* x = dst->src[1];
  const int64_t k = x->ne[0];
  const int64_t rows = dst->ne[0];
  const int64_t tokens = ggml_nrows(x);
  const int64_t nb = k / q8panel::kBlock;
  const int64_t panels = rows / q8panel::kRows;

  const bool byTokens = tokens >= 8 * nth;
  const int64_t tok0 = byTokens ? tokens * ith / nth : 0;
  const int64_t tok1 = byTokens ? tokens * (ith + 1) / nth : tokens;
  const int64_t pan0 = byTokens ? 0 : panels * ith / nth;
  const int64_t pan1 = byTokens ? panels : panels * (ith + 1) / nth;
  if (tok0 >= tok1 || pan0 >= pan1) return;

  const int64_t stride = q8panel::tokenBytes(k);
  thread_local std::vector<uint8_t> scratch;
  scratch.resize(static_cast<size_t>((tok1 - tok0) * stride));
  const auto* xs = static_cast<const float*>(x->data);
  for (int64_t m = tok0; m < tok1; ++m) {
    uint8_t* tok = scratch.data() + (m - tok0) * stride;
    kernel->quantize(xs + m * k, k, tok, reinterpret_cast<float*>(tok + k));
  }
  const auto* packed = static_cast<const uint8_t*>(panelT->data);
  auto* out = static_cast<float*>(dst->data) + tok0 * rows;
  for (int64_t p = pan0; p < pan1; ++p)
    kernel->tokens(packed + p * nb * q8panel::kBlockBytes, nb, scratch.data(), k, tok1 - tok0, out + p * q8panel::kRows, rows);
}

}  // namespace

const char* q8PanelBestKernel() {
  for (const Kernel* k : kKernels)
    if (k->supported()) return k->name;
  return nullptr;
}

bool q8PanelKernelAvailable(const char* name) { return findKernel(name) != nullptr; }

int64_t q8PanelBytes(int64_t rows, int64_t k) { return (rows / q8panel::kRows) * (k / q8panel::kBlock) * q8panel::kBlockBytes; }

void q8PanelPack(const void* q8rows, int64_t rows, int64_t k, void* dst) {
  using namespace q8panel;
  const auto* src = static_cast<const BlockQ8*>(q8rows);
  const int64_t nb = k / kBlock;
  auto* out = static_cast<uint8_t*>(dst);
  for (int64_t p = 0; p < rows / kRows; ++p)
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* blk = out + (p * nb + b) * kBlockBytes;
      for (int64_t r = 0; r < kRows; ++r) {
        const BlockQ8& q = src[(p * kRows + r) * nb + b];
        int32_t sum = 0;
        for (int64_t j = 0; j < kBlock; ++j) {
          blk[(j / 4) * kGroupBytes + r * 4 + (j % 4)] = static_cast<uint8_t>(q.qs[j]);
          sum += q.qs[j];
        }
        const float scale = ggml_fp16_to_fp32(q.d);
        const int32_t bias = 128 * sum;
        std::memcpy(blk + kScalesAt + r * 4, &scale, 4);
        std::memcpy(blk + kBiasAt + r * 4, &bias, 4);
      }
    }
}

ggml_tensor* q8PanelMulMat(ggml_context* ctx, ggml_tensor* panel, ggml_tensor* x, int64_t rows, const char* kernel) {
  ggml_tensor* args[2] = {panel, x};
  void* chosen = const_cast<Kernel*>(findKernel(kernel));
  return ggml_custom_4d(ctx, GGML_TYPE_F32, rows, x->ne[1], x->ne[2], x->ne[3], args, 2, q8PanelOp, GGML_N_TASKS_MAX, chosen);
}

}  // namespace jepa
