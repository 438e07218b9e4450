// Decoded photos are big, short-lived blocks allocated on libuv's threads (libvips and the
// resampler). glibc raises its mmap threshold each time such a block is freed, after which they
// come from per-thread arenas that keep their pages, and RSS creeps up with the number of images
// (jepa embed of 1,000 1024-px images: +16 % over 100; with a fixed threshold, +7 %).
#include "malloc_policy.h"

#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace jepa {

void applyMallocPolicy() {
#if defined(__GLIBC__)
  // The user's own MALLOC_MMAP_THRESHOLD_ wins.
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr) mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

bool trimHeapPages() {
#if defined(__GLIBC__)
  return malloc_trim(0) == 1;
#else
  return false;
#endif
}

}  // namespace jepa
