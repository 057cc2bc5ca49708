// loop_testing.h - what the loop's tests share (here and in modules/hal):
// fence-wait outcomes, a bounded run, the libuv loop as an RAII object, a
// fake backend driven by the test's own clock, and a thread that signals or
// fails fences in a shuffled order.
#ifndef STRATA_HAL_SRC_LOOP_TESTING_H_
#define STRATA_HAL_SRC_LOOP_TESTING_H_

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "loop_backend.h"
#include "strata/hal/loop.h"
#include "strata/hal/semaphore.h"
#include "sync_testing.h"

namespace strata::hal::testing {

inline strata_hal_fence_t* pendingFence(strata_allocator_t allocator) {
  strata_hal_fence_t* fence = nullptr;
  REQUIRE(strata_hal_fence_create_pending(allocator, &fence) == nullptr);
  return fence;
}

inline strata_status_t failure(const char* message) {
  return strata_status_annotate(
      strata_make_status(STRATA_STATUS_INTERNAL, "%s", message),
      "at dispatch matmul[2]");
}

//===--------------------------------------------------------------------===//
// Outcomes of loop callbacks
//===--------------------------------------------------------------------===//

struct Outcome {
  int calls = 0;
  strata_status_code_t code = STRATA_STATUS_OK;
  std::string text;
  int32_t value = INT32_MIN;
  std::thread::id thread;
  int64_t at_ns = 0;
};

// Records a callback's outcome (status owned by the callback).
inline void recordOutcome(Outcome* o, strata_status_t status) {
  ++o->calls;
  o->thread = std::this_thread::get_id();
  o->at_ns = strata_hal_now_ns();
  o->code = strata_status_code(status);
  if (char* t = strata_status_to_string(status)) {
    o->text = t;
    std::free(t);
  }
  strata_status_free(status);
}

inline void onFence(void* user, strata_status_t status) {
  recordOutcome(static_cast<Outcome*>(user), status);
}

// Runs the loop until done() holds, failing instead of hanging: a watchdog
// fence wait keeps a timer armed so run_once always returns.
template <typename Done>
bool runUntil(strata_hal_loop_t* loop, Done done, int timeout_ms = 10000) {
  strata_hal_fence_t* watchdog = pendingFence(strata_allocator_system());
  Outcome fired;
  REQUIRE(strata_hal_loop_wait_fence(loop, watchdog,
                                     deadlineAfterMs(timeout_ms), onFence,
                                     &fired) == nullptr);
  while (!done() && fired.calls == 0) {
    REQUIRE(strata_hal_loop_run_once(loop, nullptr) == nullptr);
  }
  bool ok = done();
  if (fired.calls == 0) {
    CHECK(strata_hal_fence_signal(watchdog) == nullptr);
    while (fired.calls == 0) {
      REQUIRE(strata_hal_loop_run_once(loop, nullptr) == nullptr);
    }
  }
  strata_hal_fence_release(watchdog);
  return ok;
}

struct Loop {
  explicit Loop(strata_allocator_t allocator = strata_allocator_system()) {
    REQUIRE(strata_hal_loop_create(allocator, &loop) == nullptr);
  }
  ~Loop() { strata_hal_loop_destroy(loop); }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;
  operator strata_hal_loop_t*() const { return loop; }
  strata_hal_loop_t* loop = nullptr;
};

//===--------------------------------------------------------------------===//
// A fake backend: no threads, no clock but the test's
//===--------------------------------------------------------------------===//

class FakeBackend final : public LoopBackend {
 public:
  explicit FakeBackend(LoopHandler* handler) : handler(handler) {}
  void wake() override { woken.store(true); }
  void setTimer(int64_t deadline_ns) override { timer = deadline_ns; }
  void setIdle(bool on) override { idle = on; }
  void setAlive(bool on) override { alive = on; }
  bool run(RunMode) override {
    // One iteration in the order libuv uses: timers, idle, then I/O.
    ++iterations;
    if (timer <= now) {
      timer = INT64_MAX;
      handler->onTimer();
    }
    if (idle) {
      handler->onIdle();
    }
    if (woken.exchange(false)) {
      handler->onWake();
    }
    return alive;
  }
  int64_t nowNs() override { return now; }

  LoopHandler* handler;
  std::atomic<bool> woken{false};
  int64_t timer = INT64_MAX;
  bool idle = false;
  bool alive = false;
  int64_t now = 0;
  int iterations = 0;
};

struct FakeLoop {
  explicit FakeLoop(strata_allocator_t allocator) {
    REQUIRE(createLoopWithBackend(
                allocator,
                [](void* user, LoopHandler* handler,
                   LoopBackend** out) -> strata_status_t {
                  auto* self = static_cast<FakeLoop*>(user);
                  self->fake = new FakeBackend(handler);
                  *out = self->fake;
                  return nullptr;
                },
                this, [](LoopBackend* backend) { delete backend; },
                &loop) == nullptr);
  }
  ~FakeLoop() { strata_hal_loop_destroy(loop); }
  FakeLoop(const FakeLoop&) = delete;
  FakeLoop& operator=(const FakeLoop&) = delete;
  void turn() { REQUIRE(strata_hal_loop_run_nowait(loop, nullptr) == nullptr); }
  strata_hal_loop_t* loop = nullptr;
  FakeBackend* fake = nullptr;
};

// Signals fences handed to it, from its own thread, in a shuffled order and
// after a short random delay; fails those marked to fail.
class Signaller {
 public:
  Signaller() : thread_([this] { run(); }) {}
  ~Signaller() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    condition_.notify_one();
    thread_.join();
  }
  // Takes a reference to fence.
  void add(strata_hal_fence_t* fence, bool fail = false) {
    strata_hal_fence_retain(fence);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back({fence, fail});
    }
    condition_.notify_one();
  }

 private:
  struct Item {
    strata_hal_fence_t* fence;
    bool fail;
  };
  void run() {
    std::mt19937 rng(42);
    for (;;) {
      std::vector<Item> batch;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        condition_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty() && stop_) {
          return;
        }
        batch.assign(queue_.begin(), queue_.end());
        queue_.clear();
      }
      std::shuffle(batch.begin(), batch.end(), rng);
      for (Item& item : batch) {
        if (rng() % 4 == 0) {
          std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
        }
        if (item.fail) {
          strata_hal_fence_fail(item.fence, failure("kernel failed on tile 3"));
        } else {
          CHECK(strata_hal_fence_signal(item.fence) == nullptr);
        }
        strata_hal_fence_release(item.fence);
      }
    }
  }
  std::mutex mutex_;
  std::condition_variable condition_;
  std::deque<Item> queue_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace strata::hal::testing

#endif  // STRATA_HAL_SRC_LOOP_TESTING_H_
