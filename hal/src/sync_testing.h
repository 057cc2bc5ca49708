// sync_testing.h - helpers shared by the semaphore, fence and loop tests: a
// counting allocator (to prove nothing leaks), a status holder, and a
// bounded spin-wait so that a hang fails fast instead of stalling the suite.
#ifndef STRATA_HAL_SRC_SYNC_TESTING_H_
#define STRATA_HAL_SRC_SYNC_TESTING_H_

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/semaphore.h"

namespace strata::hal::testing {

// Counts live allocations; wraps the system allocator.
class CountingAllocator {
public:
  strata_allocator_t get() {
    strata_allocator_t a;
    a.self = this;
    a.alloc = [](void* self, size_t size, size_t alignment) -> void* {
      void* p = strata_allocator_system().alloc(nullptr, size, alignment);
      if (p) {
        static_cast<CountingAllocator*>(self)->live_.fetch_add(1);
      }
      return p;
    };
    a.free = [](void* self, void* ptr) {
      if (ptr) {
        static_cast<CountingAllocator*>(self)->live_.fetch_sub(1);
      }
      strata_allocator_system().free(nullptr, ptr);
    };
    return a;
  }
  long live() const { return live_.load(); }

private:
  std::atomic<long> live_{0};
};

// Owns a status; renders it for assertions.
struct Status {
  explicit Status(strata_status_t s = nullptr) { reset(s); }
  ~Status() { strata_status_free(status); }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;
  void reset(strata_status_t s) {
    strata_status_free(status);
    status = s;
    text.clear();
    if (char* t = strata_status_to_string(s)) {
      text = t;
      std::free(t);
    }
  }
  bool ok() const { return status == nullptr; }
  strata_status_code_t code() const { return strata_status_code(status); }
  bool contains(const std::string& needle) const {
    return text.find(needle) != std::string::npos;
  }
  strata_status_t status = nullptr;
  std::string text;
};

// Spins (sleeping briefly) until pred() holds or timeout_ms passes.
template <typename Pred> bool eventually(Pred pred, int timeout_ms = 5000) {
  auto end =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

inline int64_t deadlineAfterMs(int64_t ms) {
  return strata_hal_deadline_after_ns(ms * 1000000);
}

inline uint32_t refs(strata_hal_semaphore_t* s) {
  return strata_vm_ref_count(strata_hal_semaphore_as_ref(s));
}
inline uint32_t refs(strata_hal_fence_t* f) {
  return strata_vm_ref_count(strata_hal_fence_as_ref(f));
}

}  // namespace strata::hal::testing

#endif  // STRATA_HAL_SRC_SYNC_TESTING_H_
