// allocator.cpp - the system allocator.
#include "strata/base/allocator.h"

#include <cstddef>
#include <cstdlib>

namespace {

void* systemAlloc(void*, size_t size, size_t alignment) {
  // malloc already aligns to max_align_t (16 bytes on x86-64 and aarch64),
  // and unlike posix_memalign it is served from the per-thread cache.
  if (alignment <= alignof(std::max_align_t)) {
    return std::malloc(size ? size : 1);
  }
  void* ptr = nullptr;
  if (posix_memalign(&ptr, alignment, size ? size : 1) != 0) {
    return nullptr;
  }
  return ptr;
}

void systemFree(void*, void* ptr) { std::free(ptr); }

}  // namespace

extern "C" strata_allocator_t strata_allocator_system(void) {
  return strata_allocator_t{nullptr, systemAlloc, systemFree};
}
