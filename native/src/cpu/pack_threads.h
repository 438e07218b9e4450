// Panels are packed on plain threads (a ViT-H file holds 2.4 GB of them). Not OpenMP: a team started
// from the loading thread stays alive beside the compute thread's and slowed later graphs by a
// quarter (LeWM rollout, q8_0).
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace jepa::panel {

// packPanels(p0, p1) over `panels` panels of k steps, split over up to 8 threads.
template <typename Fn>
void onPackThreads(int64_t panels, int64_t k, const Fn& packPanels) {
  const int64_t workers = std::min<int64_t>({static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency())), 8, panels * k / (1 << 16) + 1});
  std::vector<std::thread> threads;
  for (int64_t w = 1; w < workers; ++w) threads.emplace_back(packPanels, panels * w / workers, panels * (w + 1) / workers);
  packPanels(0, panels / workers);
  for (std::thread& t : threads) t.join();
}

}  // namespace jepa::panel
