// sync_testing.h - helpers shared by the semaphore, fence and loop tests
// (here and in modules/hal): a counting allocator (to prove nothing leaks),
// a status holder, a bounded spin-wait so that a hang fails fast instead of
// stalling the suite, and a fence over fresh semaphores.
#ifndef STRATA_HAL_SRC_SYNC_TESTING_H_
#define STRATA_HAL_SRC_SYNC_TESTING_H_

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

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

inline strata_hal_semaphore_t* newSemaphore(uint64_t initial,
                                            strata_allocator_t allocator) {
  strata_hal_semaphore_t* s = nullptr;
  REQUIRE(strata_hal_semaphore_create(initial, allocator, &s) == nullptr);
  return s;
}

// A fence over `count` fresh semaphores at 0, each waited to value 1.
struct FenceFixture {
  explicit FenceFixture(
      size_t count, strata_allocator_t allocator = strata_allocator_system())
      : allocator(allocator) {
    REQUIRE(strata_hal_fence_create(count, allocator, &fence) == nullptr);
    for (size_t i = 0; i < count; ++i) {
      strata_hal_semaphore_t* s = newSemaphore(0, allocator);
      REQUIRE(strata_hal_fence_insert(fence, s, 1) == nullptr);
      semaphores.push_back(s);
    }
  }
  ~FenceFixture() {
    for (strata_hal_semaphore_t* s : semaphores) {
      strata_hal_semaphore_release(s);
    }
    strata_hal_fence_release(fence);
  }
  FenceFixture(const FenceFixture&) = delete;
  FenceFixture& operator=(const FenceFixture&) = delete;
  void signal(size_t i) {
    REQUIRE(strata_hal_semaphore_signal(semaphores[i], 1) == nullptr);
  }
  int reached() {
    int r = -1;
    Status s(strata_hal_fence_query(fence, &r));
    return s.ok() ? r : -1;
  }
  strata_allocator_t allocator;
  strata_hal_fence_t* fence = nullptr;
  std::vector<strata_hal_semaphore_t*> semaphores;
};

}  // namespace strata::hal::testing

#endif  // STRATA_HAL_SRC_SYNC_TESTING_H_
