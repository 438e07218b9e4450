// mulmat-driver K M N TYPE THREADS REPEATS: median ms of one ggml mul_mat through the CPU backend
// API, the same calls the addon makes. jepa-bench runs it beside the binding to price the binding.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

// The addon sets flush-to-zero on every compute thread; do the same so the two run the same code.
static void enableFlushToZero(int threads) {
#if defined(__x86_64__)
  _mm_setcsr(_mm_getcsr() | 0x8040);
#pragma omp parallel num_threads(threads)
  { _mm_setcsr(_mm_getcsr() | 0x8040); }
#endif
}

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s K M N f32|f16 THREADS REPEATS\n", argv[0]);
    return 2;
  }
  const int64_t K = std::atoll(argv[1]), M = std::atoll(argv[2]), N = std::atoll(argv[3]);
  const ggml_type wtype = std::strcmp(argv[4], "f16") == 0 ? GGML_TYPE_F16 : GGML_TYPE_F32;
  const int threads = std::atoi(argv[5]), repeats = std::atoi(argv[6]);

  ggml_init_params params{16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
  ggml_context* ctx = ggml_init(params);
  ggml_tensor* a = ggml_new_tensor_2d(ctx, wtype, K, M);
  ggml_tensor* b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
  ggml_tensor* c = ggml_mul_mat(ctx, a, b);
  ggml_cgraph* gf = ggml_new_graph(ctx);
  ggml_build_forward_expand(gf, c);

#ifdef GGML_BACKEND_DL
  ggml_backend_load_all_from_path(JEPA_BACKEND_DIR);
#endif
  ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
  if (!cpu) {
    std::fprintf(stderr, "no ggml CPU backend\n");
    return 1;
  }
  ggml_backend_t backend = ggml_backend_dev_init(cpu, nullptr);
  auto setThreads = reinterpret_cast<ggml_backend_set_n_threads_t>(
      ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(cpu), "ggml_backend_set_n_threads"));
  if (setThreads) setThreads(backend, threads);
  ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, backend);

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> av(K * M), bv(K * N);
  for (auto& v : av) v = dist(rng);
  for (auto& v : bv) v = dist(rng);
  if (wtype == GGML_TYPE_F16) {
    std::vector<ggml_fp16_t> h(av.size());
    ggml_fp32_to_fp16_row(av.data(), h.data(), static_cast<int64_t>(av.size()));
    ggml_backend_tensor_set(a, h.data(), 0, h.size() * sizeof(ggml_fp16_t));
  } else {
    ggml_backend_tensor_set(a, av.data(), 0, av.size() * sizeof(float));
  }
  ggml_backend_tensor_set(b, bv.data(), 0, bv.size() * sizeof(float));

  enableFlushToZero(threads);
  std::vector<double> ms;
  for (int r = 0; r < repeats + 2; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    ggml_backend_graph_compute(backend, gf);
    auto t1 = std::chrono::steady_clock::now();
    if (r >= 2) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  double median = ms[ms.size() / 2];
  std::printf("{\"ms\": %.4f, \"gflops\": %.2f}\n", median, 2.0 * K * M * N / (median * 1e6));
  ggml_backend_buffer_free(buf);
  ggml_backend_free(backend);
  ggml_free(ctx);
  return 0;
}
