// loop_uv.cpp - the libuv backend of the loop: one uv_async_t for wake-ups
// from any thread, one uv_timer_t for the earliest deadline, one uv_idle_t
// for work that is ready now. The only file in the repository that includes
// <uv.h>.
#include <uv.h>

#include <cstdint>
#include <new>

#include "loop_backend.h"

namespace strata::hal {
namespace {

class UvLoopBackend final : public LoopBackend {
 public:
  UvLoopBackend(LoopHandler* handler, strata_allocator_t allocator)
      : handler_(handler), allocator_(allocator) {}

  strata_status_t initialize() {
    int rc = uv_loop_init(&loop_);
    if (rc != 0) {
      return strata_make_status(STRATA_STATUS_UNAVAILABLE,
                                "libuv could not create a loop: %s",
                                uv_strerror(rc));
    }
    loop_ready_ = true;
    rc = uv_async_init(&loop_, &async_, onAsync);
    if (rc != 0) {
      return strata_make_status(STRATA_STATUS_UNAVAILABLE,
                                "libuv could not create an async handle: %s",
                                uv_strerror(rc));
    }
    async_.data = this;
    uv_timer_init(&loop_, &timer_);
    timer_.data = this;
    uv_idle_init(&loop_, &idle_);
    idle_.data = this;
    // Nothing keeps the loop alive until the core says so (setAlive).
    uv_unref(reinterpret_cast<uv_handle_t*>(&async_));
    uv_unref(reinterpret_cast<uv_handle_t*>(&timer_));
    uv_unref(reinterpret_cast<uv_handle_t*>(&idle_));
    handles_ready_ = true;
    return nullptr;
  }

  // Closes the handles and the loop. Every producer has stopped (the core
  // waits for that), so uv_async_send cannot race with the close.
  void shutdown() {
    if (handles_ready_) {
      uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
      uv_run(&loop_, UV_RUN_DEFAULT);  // runs the close callbacks
    }
    if (loop_ready_) {
      uv_loop_close(&loop_);
    }
  }

  strata_allocator_t allocator() const { return allocator_; }

  void wake() override { uv_async_send(&async_); }

  void setTimer(int64_t deadline_ns) override {
    if (deadline_ns == INT64_MAX) {
      uv_timer_stop(&timer_);
      return;
    }
    // libuv timers count whole milliseconds from the loop's cached time:
    // refresh it and round up, so the timer never fires before the deadline
    // (the core re-arms if it still does).
    uv_update_time(&loop_);
    int64_t delta = deadline_ns - strata_hal_now_ns();
    uint64_t ms = delta <= 0 ? 0 : static_cast<uint64_t>((delta + 999999) / 1000000);
    uv_timer_start(&timer_, onTimer, ms, 0);
  }

  void setIdle(bool on) override {
    if (on) {
      uv_idle_start(&idle_, onIdle);
    } else {
      uv_idle_stop(&idle_);
    }
  }

  void setAlive(bool on) override {
    if (on == alive_) {
      return;
    }
    alive_ = on;
    if (on) {
      uv_ref(reinterpret_cast<uv_handle_t*>(&async_));
    } else {
      uv_unref(reinterpret_cast<uv_handle_t*>(&async_));
    }
  }

  bool run(RunMode mode) override {
    uv_run_mode uv_mode = mode == RunMode::kDefault ? UV_RUN_DEFAULT
                          : mode == RunMode::kOnce  ? UV_RUN_ONCE
                                                    : UV_RUN_NOWAIT;
    return uv_run(&loop_, uv_mode) != 0;
  }

  int64_t nowNs() override { return strata_hal_now_ns(); }

 private:
  static UvLoopBackend* self(void* handle) {
    return static_cast<UvLoopBackend*>(
        static_cast<uv_handle_t*>(handle)->data);
  }
  static void onAsync(uv_async_t* handle) { self(handle)->handler_->onWake(); }
  static void onTimer(uv_timer_t* handle) { self(handle)->handler_->onTimer(); }
  static void onIdle(uv_idle_t* handle) { self(handle)->handler_->onIdle(); }

  LoopHandler* handler_;
  strata_allocator_t allocator_;
  uv_loop_t loop_{};
  uv_async_t async_{};
  uv_timer_t timer_{};
  uv_idle_t idle_{};
  bool loop_ready_ = false;
  bool handles_ready_ = false;
  bool alive_ = false;
};

}  // namespace

strata_status_t createUvLoopBackend(LoopHandler* handler,
                                    strata_allocator_t allocator,
                                    LoopBackend** out_backend) {
  *out_backend = nullptr;
  void* memory = strata_allocator_alloc(allocator, sizeof(UvLoopBackend),
                                        alignof(UvLoopBackend));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a libuv loop");
  }
  auto* backend = new (memory) UvLoopBackend(handler, allocator);
  strata_status_t status = backend->initialize();
  if (status) {
    destroyUvLoopBackend(backend);
    return status;
  }
  *out_backend = backend;
  return nullptr;
}

void destroyUvLoopBackend(LoopBackend* base) {
  if (!base) {
    return;
  }
  // Only ever called with backends made above.
  auto* backend = static_cast<UvLoopBackend*>(base);
  backend->shutdown();
  strata_allocator_t allocator = backend->allocator();
  backend->~UvLoopBackend();
  strata_allocator_free(allocator, backend);
}

}  // namespace strata::hal
