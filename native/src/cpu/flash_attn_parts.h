// What the CPU flash kernel's per-level translation units share (not part of the addon's API).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ggml.h"

namespace jepa::flash {

constexpr int64_t kQueries = 48;     // queries per block: the scores' row width (3 groups of 16)
constexpr int64_t kKeyBlock = 1024;  // keys per fma chain of P·V

// Key ranges [first, second) of a query block that some query sees; the rest are masked for all.
using KeyRuns = std::vector<std::pair<int64_t, int64_t>>;

struct Scratch {
  std::vector<float> keys;     // [key tiles][D][8]: the head's keys as the broadcast operand
  std::vector<float> queries;  // [3][D][16]: a block's queries, 16 per group, zero-padded
  std::vector<float> probs;    // [NK][48]: scores, then probabilities, of every key for the block's queries
  std::vector<float> values;   // [NK][DV]: the head's values, contiguous (in a fused qkv tensor rows are far apart)
  std::vector<float> rounded;  // [8][D]: a tile of keys rounded through f16
  KeyRuns runs;
};

// Queries [q0, q1) of one head of one item, written to dst (flash_attn.h's operands in dst->src).
using TaskFn = void (*)(ggml_tensor* dst, int64_t item, int64_t head, int64_t q0, int64_t q1, float scale, bool kvF16, Scratch& sc);

extern const TaskFn kAvx512Task;  // flash_attn.cpp; null without AVX-512 code or libmvec
extern const TaskFn kAvx2Task;    // flash_attn_avx2.cpp; null without libmvec

}  // namespace jepa::flash
