// The q8_row panel node: its pack, its kernels' registry and the op that splits tokens or panels
// across threads, quantizes each token once, and finishes the outputs like the other panels.
#include "panel_rows.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "panel_layout.h"
#include "panel_rows_op.h"

namespace jepa::panel::rows {
namespace {

const Kernel* const kKernels[] = {&kAmx, &kAvx512Vnni, &kAvxVnni, &kAvx512, &kAvx2};  // fastest first
constexpr size_t kKernelCount = sizeof kKernels / sizeof kKernels[0];

struct OpChoice {
  const Kernel* kernel;
  Epilogue epilogue;
};

template <size_t... I>
constexpr std::array<OpChoice, sizeof...(I)> makeChoices(std::index_sequence<I...>) {
  return {OpChoice{kKernels[I / kEpilogues], epilogueAt(static_cast<int>(I % kEpilogues))}...};
}
const std::array<OpChoice, kKernelCount * kEpilogues> kChoices = makeChoices(std::make_index_sequence<kKernelCount * kEpilogues>{});

void op(ggml_tensor* dst, int ith, int nth, void* userdata) {
  const auto* choice = static_cast<const OpChoice*>(userdata);
  const ggml_tensor* x = dst->src[1];
  const int64_t k = x->ne[0], kp = paddedK(k), stride = kp * choice->kernel->valueBytes;
  const int64_t rows = dst->ne[0], tokens = ggml_nrows(x);
  const Share share = shareOf(tokens, rows / kRows, ith, nth);
  if (share.empty()) return;
  const int64_t n = share.tok1 - share.tok0;
  // Whole 32-token tiles readable (AMX loads them; the rows past n are zeros and never stored).
  thread_local std::vector<uint8_t> xq;
  thread_local std::vector<TokenQuant> meta;
  const int64_t padded = (n + 31) / 32 * 32;
  // The quantizer writes every byte of a live row; only the rows past n need zeros.
  xq.resize(static_cast<size_t>(padded * stride));
  std::memset(xq.data() + n * stride, 0, static_cast<size_t>((padded - n) * stride));
  meta.resize(static_cast<size_t>(padded));
  const auto* xs = static_cast<const float*>(x->data);
  for (int64_t t = 0; t < n; ++t) choice->kernel->quantize(xs + (share.tok0 + t) * k, k, xq.data() + t * stride, &meta[t]);
  const auto* panels = static_cast<const uint8_t*>(dst->src[0]->data) + share.pan0 * panelBytes(k);
  float* out = static_cast<float*>(dst->data) + share.tok0 * rows + share.pan0 * kRows;
  // Kernels walk panels outer and tokens inner; blocks of tokens small enough to stay in L2 (about
  // 192 KiB of them) keep a batch's activations from being re-read from L3 for every panel.
  const int64_t block = std::max<int64_t>(32, 192 * 1024 / stride / 32 * 32);
  const int64_t npanels = share.pan1 - share.pan0, bytes = panelBytes(k);
  const int64_t chunk = choice->kernel->finishPanels > 0 ? choice->kernel->finishPanels : npanels;
  for (int64_t t = 0; t < n; t += block) {
    const int64_t m = std::min(block, n - t);
    // the epilogue runs on each chunk of panels as soon as its outputs are whole, while they are in cache
    for (int64_t p = 0; p < npanels; p += chunk) {
      const int64_t np = std::min(chunk, npanels - p);
      choice->kernel->tokens(panels + p * bytes, np, k, xq.data() + t * stride, meta.data() + t, m, out + t * rows + p * kRows, rows);
      finish(choice->epilogue, dst, share.tok0 + t, share.tok0 + t + m, (share.pan0 + p) * kRows, (share.pan0 + p + np) * kRows);
    }
  }
}

}  // namespace

void walkTiles(TileFn (*tileFor)(int t, int p), int kT, int kP, int64_t rowBytes, const uint8_t* panels, int64_t npanels, int64_t k,
               const uint8_t* xq, const TokenQuant* meta, int64_t n, float* out, int64_t ldo) {
  const int64_t bytes = panelBytes(k);
  for (int64_t p = 0; p < npanels; p += kP) {
    const int pp = static_cast<int>(std::min<int64_t>(npanels - p, kP));
    for (int64_t t = 0; t < n; t += kT) {
      const int tt = static_cast<int>(std::min<int64_t>(n - t, kT));
      tileFor(tt, pp)(panels + p * bytes, k, xq + t * rowBytes, meta + t, out + t * ldo + p * kRows, ldo);
    }
  }
}

const char* bestKernel() {
  for (const Kernel* k : kKernels)
    if (k->supported()) return k->name;
  return nullptr;
}

const Kernel* findKernel(const char* name) {
  for (const Kernel* k : kKernels)
    if (std::strcmp(k->name, name) == 0 && k->supported()) return k;
  return nullptr;
}

int64_t matrixBytes(int64_t rows, int64_t k) {
  if (rows < 1 || k < 1 || rows % kRows != 0 || k > kMaxK) return -1;
  return rows / kRows * panelBytes(k);
}

void pack(const int8_t* q, const float* scales, int64_t nrows, int64_t k, uint8_t* dst) {
  const int64_t bytes = panelBytes(k);
  std::memset(dst, 0, static_cast<size_t>(matrixBytes(nrows, k)));
  for (int64_t row = 0; row < nrows; ++row) {
    uint8_t* panel = dst + (row / kRows) * bytes;
    const int64_t r = row % kRows;
    int32_t sum = 0;
    for (int64_t j = 0; j < k; ++j) {
      panel[(j / 4) * kGroupBytes + r * 4 + j % 4] = static_cast<uint8_t>(q[row * k + j]);
      sum += q[row * k + j];
    }
    std::memcpy(panel + scalesAt(k) + r * 4, &scales[row], 4);
    std::memcpy(panel + sumsAt(k) + r * 4, &sum, 4);
  }
}

ggml_tensor* mulMat(ggml_context* ctx, ggml_tensor** args, int nargs, int64_t rows, const Kernel* kernel, Epilogue e, const ggml_tensor* x) {
  size_t at = 0;
  while (kKernels[at] != kernel) ++at;
  void* choice = const_cast<OpChoice*>(&kChoices[at * kEpilogues + epilogueIndex(e)]);
  return ggml_custom_4d(ctx, GGML_TYPE_F32, rows, x->ne[1], x->ne[2], x->ne[3], args, nargs, op, GGML_N_TASKS_MAX, choice);
}

}  // namespace jepa::panel::rows
