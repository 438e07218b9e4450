#pragma once

namespace jepa {

// Blocks of 1 MiB and more are mapped and unmapped on their own (glibc), whatever was freed before.
void applyMallocPolicy();

// Hands the heap's free pages back to the OS (glibc malloc_trim(0)); whether any were released.
bool trimHeapPages();

}  // namespace jepa
