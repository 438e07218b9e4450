#include "panel.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "gelu_erf.h"
#include "panel_f32.h"
#include "panel_finish.h"
#include "panel_layout.h"
#include "panel_rows_op.h"

namespace jepa {
namespace {

using panel::Kernel;
using panel::kBlock;
using panel::kRows;

struct BlockQ8_0 {
  ggml_fp16_t d;
  int8_t qs[32];
};
struct BlockQ4_0 {
  ggml_fp16_t d;
  uint8_t qs[16];
};
struct BlockQ4_K {
  ggml_fp16_t d;
  ggml_fp16_t dmin;
  uint8_t scales[12];
  uint8_t qs[128];
};
static_assert(sizeof(BlockQ8_0) == 34 && sizeof(BlockQ4_0) == 18 && sizeof(BlockQ4_K) == 144, "ggml's block layouts");

constexpr const Kernel* kKernels[] = {&panel::kAvx512Vnni, &panel::kAvxVnni, &panel::kAvx2};  // fastest first
constexpr size_t kKernelCount = sizeof kKernels / sizeof kKernels[0];

const Kernel* findKernel(const char* name) {
  for (const Kernel* k : kKernels)
    if (std::strcmp(k->name, name) == 0 && k->supported()) return k;
  return nullptr;
}

bool fourBit(ggml_type type) { return type == GGML_TYPE_Q4_0 || type == GGML_TYPE_Q4_K; }

// What a node needs beyond its operands; constant, so nodes on any thread may read it.
struct OpChoice {
  const Kernel* kernel;
  bool four;
  panel::Epilogue epilogue;
  bool wide;  // the kernel's wide tiles where it has them
};

// [wide][kernel][four][epilogue], kernels in the order of kKernels.
template <size_t... I>
constexpr std::array<OpChoice, sizeof...(I)> makeChoices(std::index_sequence<I...>) {
  return {OpChoice{kKernels[(I / (2 * panel::kEpilogues)) % kKernelCount], (I / panel::kEpilogues) % 2 != 0,
                   panel::epilogueAt(static_cast<int>(I % panel::kEpilogues)), I >= 2 * kKernelCount * panel::kEpilogues}...};
}
constexpr size_t kChoiceCount = 2 * kKernelCount * 2 * panel::kEpilogues;
constexpr std::array<OpChoice, kChoiceCount> kChoices = makeChoices(std::make_index_sequence<kChoiceCount>{});

const OpChoice* choiceFor(const Kernel* kernel, bool four, panel::Epilogue e, bool wide) {
  for (size_t i = 0; i < kKernelCount; ++i)
    if (kKernels[i] == kernel)
      return &kChoices[((wide ? kKernelCount : 0) + i) * 2 * panel::kEpilogues + (four ? 1 : 0) * panel::kEpilogues + panel::epilogueIndex(e)];
  return nullptr;
}

// JEPA_PANEL_WIDE=0: one panel at a time (the same bits), read as a node is made, on the caller's thread.
bool wideTiles() {
  const char* setting = std::getenv("JEPA_PANEL_WIDE");
  return !(setting && std::strcmp(setting, "0") == 0);
}

// The f32 op's userdata: its epilogue.
constexpr std::array<panel::Epilogue, panel::kEpilogues> kF32Epilogues = [] {
  std::array<panel::Epilogue, panel::kEpilogues> all{};
  for (int i = 0; i < panel::kEpilogues; ++i) all[i] = panel::epilogueAt(i);
  return all;
}();

void panelOp(ggml_tensor* dst, int ith, int nth, void* userdata) {
  const auto* choice = static_cast<const OpChoice*>(userdata);
  const ggml_tensor* panelT = dst->src[0];
  const ggml_tensor* x = dst->src[1];
  const int64_t k = x->ne[0];
  const int64_t rows = dst->ne[0];
  const int64_t tokens = ggml_nrows(x);
  const int64_t nb = k / kBlock;
  const int64_t panels = rows / kRows;
  const int64_t blockBytes = choice->four ? panel::q4::kBlockBytes : panel::q8::kBlockBytes;

  const panel::Share share = panel::shareOf(tokens, panels, ith, nth);
  if (share.empty()) return;
  const auto [tok0, tok1, pan0, pan1] = share;

  const int64_t stride = panel::tokenBytes(k, choice->four, !choice->four && choice->kernel->split8);
  thread_local std::vector<uint8_t> scratch;
  scratch.resize(static_cast<size_t>((tok1 - tok0) * stride));
  const auto* xs = static_cast<const float*>(x->data);
  for (int64_t m = tok0; m < tok1; ++m) choice->kernel->quantize(xs + m * k, k, scratch.data() + (m - tok0) * stride, choice->four);
  const auto* packed = static_cast<const uint8_t*>(panelT->data);
  auto* out = static_cast<float*>(dst->data) + tok0 * rows;
  auto run = choice->four ? choice->kernel->tokens4 : choice->kernel->tokens8;
  auto wide = !choice->wide ? nullptr : choice->four ? choice->kernel->wide4 : choice->kernel->wide8;
  int64_t p = pan0;
  if (wide)
    for (; p + panel::kWidePanels <= pan1; p += panel::kWidePanels) wide(packed + p * nb * blockBytes, nb, scratch.data(), k, tok1 - tok0, out + p * kRows, rows);
  for (; p < pan1; ++p) run(packed + p * nb * blockBytes, nb, scratch.data(), k, tok1 - tok0, out + p * kRows, rows);
  panel::finish(choice->epilogue, dst, tok0, tok1, pan0 * kRows, pan1 * kRows);
}

void put(uint8_t* at, float v) { std::memcpy(at, &v, 4); }
void put(uint8_t* at, int32_t v) { std::memcpy(at, &v, 4); }

// One 8-bit panel block: row r's 32 signed values and scale.
void pack8(uint8_t* blk, int64_t r, const int8_t* q, float scale) {
  using namespace panel::q8;
  int32_t sum = 0;
  for (int64_t j = 0; j < kBlock; ++j) {
    blk[(j / 4) * kGroupBytes + r * 4 + (j % 4)] = static_cast<uint8_t>(q[j]);
    sum += q[j];
  }
  put(blk + kScalesAt + r * 4, scale);
  put(blk + kBiasAt + r * 4, 128 * sum);
}

// One 4-bit panel block: row r's 32 values in 0..15, scale and min (w = scale·q − min).
void pack4(uint8_t* blk, int64_t r, const uint8_t* q, float scale, float min) {
  using namespace panel::q4;
  int32_t sum = 0;
  for (int64_t j = 0; j < kBlock; ++j) {
    const int64_t e = (r % 8) * 4 + (j % 4);  // byte within the group; rows 8-15 take the high nibble
    uint8_t& byte = blk[(j / 4) * kGroupBytes + e];
    byte = r < 8 ? static_cast<uint8_t>((byte & 0xF0) | q[j]) : static_cast<uint8_t>((byte & 0x0F) | (q[j] << 4));
    sum += q[j];
  }
  put(blk + kScalesAt + r * 4, scale);
  put(blk + kMinsAt + r * 4, min);
  put(blk + kBiasAt + r * 4, 128 * sum);
}

// ggml's get_scale_min_k4: the 6-bit scale and min of sub-block j of a q4_K super-block.
void scaleMinK4(int j, const uint8_t* s, uint8_t& sc, uint8_t& mn) {
  if (j < 4) {
    sc = s[j] & 63;
    mn = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
    mn = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

}  // namespace

namespace panel {
void finish(const Epilogue& e, const ggml_tensor* dst, int64_t t0, int64_t t1, int64_t r0, int64_t r1) {
  int s = 2;
  const float* bias = e.bias ? static_cast<const float*>(dst->src[s++]->data) : nullptr;
  const float* scale = e.scale ? static_cast<const float*>(dst->src[s++]->data) : nullptr;
  const float* add = e.add ? static_cast<const float*>(dst->src[s++]->data) : nullptr;
  if (!bias && !e.gelu && !scale && !add) return;
  const int64_t ld = dst->ne[0];
  if (const FinishRow lanes = (r1 - r0) % 16 == 0 ? finishRowAvx512(e) : nullptr) {
    for (int64_t t = t0; t < t1; ++t)
      lanes(static_cast<float*>(dst->data) + t * ld + r0, bias ? bias + r0 : nullptr, scale ? scale + r0 : nullptr, add ? add + t * ld + r0 : nullptr, r1 - r0);
    return;
  }
  for (int64_t t = t0; t < t1; ++t) {
    float* o = static_cast<float*>(dst->data) + t * ld;
    if (bias)
      for (int64_t r = r0; r < r1; ++r) o[r] += bias[r];
    if (e.gelu) geluErfRows(o + r0, o + r0, r1 - r0, e.rationalErf ? GeluErf::Rational : GeluErf::Libm);
    if (scale)
      for (int64_t r = r0; r < r1; ++r) o[r] *= scale[r];
    if (add)
      for (int64_t r = r0; r < r1; ++r) o[r] = add[t * ld + r] + o[r];
  }
}
}  // namespace panel

const char* panelBestKernel(ggml_type type) {
  if (type == GGML_TYPE_I8) return panel::rows::bestKernel();
  if (type == GGML_TYPE_F32 || type == GGML_TYPE_F16) return panel::f32::kernelName();
  for (const Kernel* k : kKernels)
    if (k->supported()) return k->name;
  return nullptr;
}

bool panelKernelAvailable(ggml_type type, const char* name) {
  if (type == GGML_TYPE_F32 || type == GGML_TYPE_F16) {
    const char* own = panel::f32::kernelName();
    return own && std::strcmp(name, own) == 0;
  }
  if (type == GGML_TYPE_I8) return panel::rows::findKernel(name) != nullptr;
  return findKernel(name) != nullptr;
}

int64_t panelBytes(ggml_type type, int64_t rows, int64_t k) {
  if (rows < 1 || k < 1 || rows % kRows != 0) return -1;
  switch (type) {
    case GGML_TYPE_I8: return panel::rows::matrixBytes(rows, k);
    case GGML_TYPE_F32: return rows * k * 4;
    case GGML_TYPE_F16: return rows * k * 2;
    case GGML_TYPE_Q8_0: return k % 32 ? -1 : rows / kRows * (k / kBlock) * panel::q8::kBlockBytes;
    case GGML_TYPE_Q4_0: return k % 32 ? -1 : rows / kRows * (k / kBlock) * panel::q4::kBlockBytes;
    case GGML_TYPE_Q4_K: return k % 256 ? -1 : rows / kRows * (k / kBlock) * panel::q4::kBlockBytes;
    default: return -1;
  }
}

void panelPackRows(const int8_t* q, const float* scales, int64_t nrows, int64_t k, void* dst) {
  panel::rows::pack(q, scales, nrows, k, static_cast<uint8_t*>(dst));
}

void panelPack(ggml_type type, const void* src, int64_t nrows, int64_t k, void* dst) {
  if (type == GGML_TYPE_F32) return panel::f32::pack(static_cast<const float*>(src), nrows, k, static_cast<float*>(dst));
  if (type == GGML_TYPE_F16) return panel::f32::packHalf(static_cast<const uint16_t*>(src), nrows, k, static_cast<uint16_t*>(dst));
  const int64_t nb = k / kBlock;
  const int64_t blockBytes = fourBit(type) ? panel::q4::kBlockBytes : panel::q8::kBlockBytes;
  auto* out = static_cast<uint8_t*>(dst);
  std::memset(out, 0, static_cast<size_t>(panelBytes(type, nrows, k)));
  for (int64_t row = 0; row < nrows; ++row) {
    const int64_t r = row % kRows;
    uint8_t* panelStart = out + (row / kRows) * nb * blockBytes;
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* blk = panelStart + b * blockBytes;
      if (type == GGML_TYPE_Q8_0) {
        const BlockQ8_0& q = static_cast<const BlockQ8_0*>(src)[row * nb + b];
        pack8(blk, r, q.qs, ggml_fp16_to_fp32(q.d));
      } else if (type == GGML_TYPE_Q4_0) {
        const BlockQ4_0& q = static_cast<const BlockQ4_0*>(src)[row * nb + b];
        uint8_t v[kBlock];
        for (int j = 0; j < 16; ++j) {
          v[j] = q.qs[j] & 0x0F;
          v[j + 16] = q.qs[j] >> 4;
        }
        const float d = ggml_fp16_to_fp32(q.d);
        pack4(blk, r, v, d, 8.0f * d);
      } else {
        const BlockQ4_K& q = static_cast<const BlockQ4_K*>(src)[row * (k / 256) + b / 8];
        const int sub = static_cast<int>(b % 8);
        uint8_t sc, mn;
        scaleMinK4(sub, q.scales, sc, mn);
        const uint8_t* bytes = q.qs + (sub / 2) * 32;
        uint8_t v[kBlock];
        for (int j = 0; j < 32; ++j) v[j] = sub % 2 ? bytes[j] >> 4 : bytes[j] & 0x0F;
        pack4(blk, r, v, ggml_fp16_to_fp32(q.d) * sc, ggml_fp16_to_fp32(q.dmin) * mn);
      }
    }
  }
}

ggml_tensor* panelMulMat(ggml_context* ctx, ggml_tensor* panel, ggml_tensor* x, int64_t rows, ggml_type type, const char* kernel,
                         const PanelEpilogue& then) {
  ggml_tensor* args[5] = {panel, x};
  int nargs = 2;
  for (ggml_tensor* t : {then.bias, then.scale, then.add})
    if (t) args[nargs++] = t;
  const panel::Epilogue e{then.bias != nullptr, then.gelu, then.scale != nullptr, then.add != nullptr,
                          then.gelu && then.erf == GeluErf::Rational};
  ggml_tensor* out;
  if (type == GGML_TYPE_F32 || type == GGML_TYPE_F16) {
    void* epilogue = const_cast<panel::Epilogue*>(&kF32Epilogues[panel::epilogueIndex(e)]);
    out = ggml_custom_4d(ctx, GGML_TYPE_F32, rows, x->ne[1], x->ne[2], x->ne[3], args, nargs, type == GGML_TYPE_F32 ? panel::f32::op : panel::f32::opHalf,
                         GGML_N_TASKS_MAX, epilogue);
  } else if (type == GGML_TYPE_I8) {
    out = panel::rows::mulMat(ctx, args, nargs, rows, panel::rows::findKernel(kernel), e, x);
  } else {
    void* choice = const_cast<OpChoice*>(choiceFor(findKernel(kernel), fourBit(type), e, wideTiles()));
    out = ggml_custom_4d(ctx, GGML_TYPE_F32, rows, x->ne[1], x->ne[2], x->ne[3], args, nargs, panelOp, GGML_N_TASKS_MAX, choice);
  }
  return ggml_format_name(out, "PANEL_MUL_MAT %s", ggml_type_name(type));  // what Graph.ops() reports
}

}  // namespace jepa
