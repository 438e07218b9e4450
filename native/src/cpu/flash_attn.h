// Flash attention for the CPU backend on AVX-512 or AVX2 + FMA (with glibc's SIMD expf): for each head, blocks
// of 48 queries get their scores against every key as fma chains over the head dimension, an exact
// softmax over the whole row (max, exp, sum) and P·V as fma chains over the keys; key tiles that the
// mask hides from the whole block are skipped. Scores are laid out key by query, so the softmax runs
// down vector columns. Memory is a block's scores, never N² per head. Operands and output as
// ggml_flash_attn_ext: q, k, v [D, N(K), H, B] F32 with contiguous rows, output [DV, H, N, B]; the
// optional additive F16 mask is key-major, [≥N, NK] (ggml's transposed). ggml's CPU kernel pads
// every head to 64×64 tiles and took twice as long at ViT-B's 197 tokens.
#pragma once

#include "ggml.h"

namespace jepa {

// The kernel at this CPU level and build ("avx512", "avx2": the same blocks in 8-lane vectors), or
// nullptr when there is none.
const char* flashAttnCpuKernel();

// The node; any DV (computed at DV rounded up to 16, flash_attn_parts.h). kvF16: K and V are rounded through f16 as they are packed (the F16
// K/V policy; ggml's own CPU kernel, from 64 queries up, does the rest in f32 too). Only the CPU
// backend runs it.
ggml_tensor* flashAttnCpu(ggml_context* ctx, ggml_tensor* q, ggml_tensor* k, ggml_tensor* v, ggml_tensor* maskByKey, float scale, bool kvF16);

}  // namespace jepa
