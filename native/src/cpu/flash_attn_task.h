// The CPU flash kernel's task (flash_attn_parts.h's TaskFn), written once for every level: its
// translation units (flash_attn_avx512.cpp, flash_attn_avx2.cpp) instantiate attendTask on a struct L
// of what the level does in its own vectors:
//
//   L::kKeyTile, L::kKeyLda            keys per score tile, and the floats a packed key step takes
//   L::transposeRows(rows, d, dst, s)  8 rows (null: zeros) into columns, s floats apart
//   L::roundThroughF16(src, dst, n)    the F16 K/V policy
//   L::allMasked(mask, stride, j0, j1, rows)  whether keys [j0, j1) are -inf for all `rows` queries
//   L::scores(keys, queries, d, groups, r, probs)  one tile of r keys against the block's query groups
//   L::softmaxColumns(probs, mask, maskStride, rows, runs, groups, scale, inv)
//   L::pvTileRows(dvp), L::pv(a, r, values, dvp, n, out, ldo, first)  P·V in tiles of queries
//   L::scaleRow(row, n, by)
#pragma once

#include <algorithm>
#include <cstring>

#include "flash_attn_parts.h"

namespace jepa::flash {

// The block's key runs, in whole tiles of keys: a block-causal mask hides about half of them.
template <typename L>
void keyRuns(const ggml_fp16_t* mask, int64_t stride, int64_t nk, int64_t rows, KeyRuns& runs) {
  runs.clear();
  for (int64_t j0 = 0; j0 < nk; j0 += L::kKeyTile) {
    const int64_t j1 = std::min<int64_t>(nk, j0 + L::kKeyTile);
    if (mask && L::allMasked(mask, stride, j0, j1, rows)) continue;
    if (!runs.empty() && runs.back().second == j0)
      runs.back().second = j1;
    else
      runs.emplace_back(j0, j1);
  }
}

template <typename L>
void attendTask(ggml_tensor* dst, int64_t item, int64_t head, int64_t q0, int64_t q1, float scale, bool kvF16, Scratch& sc) {
  const HeadView view = headView(dst, item, head);
  const int64_t d = view.d, nq = view.nq, heads = view.heads, nk = view.nk, dv = view.dv;
  const ggml_fp16_t* maskAt = view.mask;
  const int64_t maskStride = view.maskStride;

  // keys in tiles, each [d][kKeyLda] (slots past kKeyTile zero)
  const int64_t keyTiles = (nk + L::kKeyTile - 1) / L::kKeyTile;
  sc.keys.resize(static_cast<size_t>(keyTiles * d * L::kKeyLda));
  sc.rounded.resize(static_cast<size_t>(L::kKeyTile * d));
  for (int64_t i = 0; i < keyTiles; ++i) {
    const float* rows[8] = {};
    for (int r = 0; r < L::kKeyTile; ++r) {
      const int64_t j = i * L::kKeyTile + r;
      rows[r] = j < nk ? view.key(j) : nullptr;
      if (kvF16 && rows[r]) {
        L::roundThroughF16(rows[r], sc.rounded.data() + r * d, d);
        rows[r] = sc.rounded.data() + r * d;
      }
    }
    L::transposeRows(rows, d, sc.keys.data() + i * d * L::kKeyLda, L::kKeyLda);
  }
  const int64_t dvp = paddedWidth(dv);
  sc.values.resize(static_cast<size_t>(nk * dvp));
  for (int64_t j = 0; j < nk; ++j) {
    const auto* value = view.value(j);
    float* row = sc.values.data() + j * dvp;
    if (kvF16)
      L::roundThroughF16(value, row, dv);
    else
      std::memcpy(row, value, static_cast<size_t>(dv) * sizeof(float));
    std::memset(row + dv, 0, static_cast<size_t>(dvp - dv) * sizeof(float));
  }
  sc.queries.resize(static_cast<size_t>(kQueries * d));
  sc.probs.resize(static_cast<size_t>((keyTiles * L::kKeyTile) * kQueries));

  for (int64_t b0 = q0; b0 < q1; b0 += kQueries) {
    const int64_t rows = std::min(kQueries, q1 - b0);
    const int groups = static_cast<int>((rows + 15) / 16);
    for (int64_t h = 0; h < groups * 2; ++h) {  // 8 queries at a time into columns (h%2)·8.. of group h/2
      const float* at[8];
      for (int r = 0; r < 8; ++r) {
        const int64_t t = h * 8 + r;
        at[r] = t < rows ? view.query(b0 + t) : nullptr;
      }
      L::transposeRows(at, d, sc.queries.data() + (h / 2) * d * 16 + (h % 2) * 8, 16);
    }
    keyRuns<L>(maskAt ? maskAt + b0 : nullptr, maskStride, nk, rows, sc.runs);
    // scores [key][query]: keys are the broadcast operand, 16 queries per vector
    for (const auto& [j0, j1] : sc.runs)
      for (int64_t i = j0 / L::kKeyTile; i * L::kKeyTile < j1; ++i) {
        const int r = static_cast<int>(std::min<int64_t>(L::kKeyTile, nk - i * L::kKeyTile));
        L::scores(sc.keys.data() + i * d * L::kKeyLda, sc.queries.data(), d, groups, r, sc.probs.data() + i * L::kKeyTile * kQueries);
      }
    alignas(64) float inv[kQueries];
    L::softmaxColumns(sc.probs.data(), maskAt ? maskAt + b0 : nullptr, maskStride, rows, sc.runs, groups, scale, inv);
    // out [query][dv] = Σ_keys probs[key][query] · v[key]: queries are the broadcast operand; a dv that
    // is not whole vectors is computed at its padded width into scratch and its first dv columns kept
    const bool padded = dvp != dv;
    const int64_t tileRows = L::pvTileRows(dvp);
    if (padded) sc.out.resize(static_cast<size_t>(tileRows * dvp));
    const int64_t ldo = padded ? dvp : heads * dv;
    for (int64_t t0 = 0; t0 < rows; t0 += tileRows) {
      const int r = static_cast<int>(std::min<int64_t>(tileRows, rows - t0));
      float* target = static_cast<float*>(dst->data) + ((item * nq + b0 + t0) * heads + head) * dv;
      float* out = padded ? sc.out.data() : target;
      bool first = true;  // keys in runs and blocks, each block's chain summed into the output
      for (const auto& [k0, k1] : sc.runs)
        for (int64_t j0 = k0; j0 < k1; j0 += kKeyBlock, first = false)
          L::pv(sc.probs.data() + j0 * kQueries + t0, r, sc.values.data() + j0 * dvp, dvp, std::min(kKeyBlock, k1 - j0), out, ldo, first);
      if (first)  // no key seen by any of these queries
        for (int t = 0; t < r; ++t) std::memset(out + t * ldo, 0, static_cast<size_t>(dvp) * sizeof(float));
      for (int t = 0; t < r; ++t) L::scaleRow(out + t * ldo, dvp, inv[t0 + t]);
      if (padded)
        for (int t = 0; t < r; ++t) std::memcpy(target + t * heads * dv, out + t * dvp, static_cast<size_t>(dv) * sizeof(float));
    }
  }
}

}  // namespace jepa::flash
