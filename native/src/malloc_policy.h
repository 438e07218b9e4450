#pragma once

namespace jepa {

// Blocks of 1 MiB and more are mapped and unmapped on their own (glibc), whatever was freed before.
void applyMallocPolicy();

}  // namespace jepa
