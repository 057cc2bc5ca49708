// loop_uv.cpp - the libuv backend of the loop: a wake-up descriptor watched
// by a uv_poll_t for wake-ups from any thread, one uv_timer_t for the
// earliest deadline, one uv_idle_t for work that is ready now. The only
// file in the repository that includes <uv.h>.
//
// Why not uv_async_t: in libuv 1.44, uv_async_send writes the wake-up and
// then marks the handle "done"; the loop thread, woken by the write, spins
// and then sched_yield()s until it sees that mark. When the signalling
// thread is preempted between the two (the write itself wakes the loop
// thread, and on a busy machine the scheduler switches to it), the loop
// waits for the signaller's next time slice: bench/loop_wake measured a
// 4 ms median wake-up on a loaded 2-core machine, against 4 us with a plain
// eventfd here. The producer side now is a single write(2) that nothing
// waits on, issued only when the queue goes from empty to non-empty.
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <uv.h>
#if defined(__linux__)
#include <sys/eventfd.h>
#endif

#include <cstdint>
#include <cstring>
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
    STRATA_RETURN_IF_ERROR(openWakeDescriptor());
    rc = uv_poll_init(&loop_, &wake_, read_fd_);
    if (rc != 0) {
      return strata_make_status(STRATA_STATUS_UNAVAILABLE,
                                "libuv could not watch the wake-up descriptor: "
                                "%s",
                                uv_strerror(rc));
    }
    wake_.data = this;
    uv_timer_init(&loop_, &timer_);
    timer_.data = this;
    uv_idle_init(&loop_, &idle_);
    idle_.data = this;
    handles_ready_ = true;
    rc = uv_poll_start(&wake_, UV_READABLE, onWakeReadable);
    if (rc != 0) {
      return strata_make_status(STRATA_STATUS_UNAVAILABLE,
                                "libuv could not poll the wake-up descriptor: "
                                "%s",
                                uv_strerror(rc));
    }
    // Nothing keeps the loop alive until the core says so (setAlive).
    uv_unref(reinterpret_cast<uv_handle_t*>(&wake_));
    uv_unref(reinterpret_cast<uv_handle_t*>(&timer_));
    uv_unref(reinterpret_cast<uv_handle_t*>(&idle_));
    return nullptr;
  }

  // Closes the handles, the loop and the descriptors. Every producer has
  // stopped (the core waits for that), so no write can race with the close.
  void shutdown() {
    if (handles_ready_) {
      uv_close(reinterpret_cast<uv_handle_t*>(&wake_), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&idle_), nullptr);
      uv_run(&loop_, UV_RUN_DEFAULT);  // runs the close callbacks
    }
    if (loop_ready_) {
      uv_loop_close(&loop_);
    }
    if (write_fd_ >= 0 && write_fd_ != read_fd_) {
      close(write_fd_);
    }
    if (read_fd_ >= 0) {
      close(read_fd_);
    }
  }

  strata_allocator_t allocator() const { return allocator_; }

  void wake() override {
    // A full counter or pipe already means "wake up": EAGAIN is success.
#if defined(__linux__)
    uint64_t one = 1;  // an eventfd adds it to its counter
#else
    char one = 1;  // a pipe takes a byte
#endif
    while (write(write_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
    }
  }

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
    uint64_t ms =
        delta <= 0 ? 0 : static_cast<uint64_t>((delta + 999999) / 1000000);
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
      uv_ref(reinterpret_cast<uv_handle_t*>(&wake_));
    } else {
      uv_unref(reinterpret_cast<uv_handle_t*>(&wake_));
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
  strata_status_t openWakeDescriptor() {
#if defined(__linux__)
    read_fd_ = write_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (read_fd_ < 0) {
      return strata_make_status(STRATA_STATUS_UNAVAILABLE,
                                "the loop could not create an eventfd: %s",
                                std::strerror(errno));
    }
#else
    int fds[2];
    if (pipe(fds) != 0) {
      return strata_make_status(STRATA_STATUS_UNAVAILABLE,
                                "the loop could not create a pipe: %s",
                                std::strerror(errno));
    }
    read_fd_ = fds[0];
    write_fd_ = fds[1];
    for (int fd : fds) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
      fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
#endif
    return nullptr;
  }

  // Empties the descriptor before draining the queue: a push after this
  // read writes again, so no wake-up is lost.
  void consumeWake() {
    char buffer[64];
    for (;;) {
      ssize_t n = read(read_fd_, buffer, sizeof(buffer));
      if (n > 0 && n == static_cast<ssize_t>(sizeof(buffer))) {
        continue;  // a pipe may hold more
      }
      if (n < 0 && errno == EINTR) {
        continue;
      }
      return;
    }
  }

  static UvLoopBackend* self(void* handle) {
    return static_cast<UvLoopBackend*>(static_cast<uv_handle_t*>(handle)->data);
  }
  static void onWakeReadable(uv_poll_t* handle, int, int) {
    UvLoopBackend* backend = self(handle);
    backend->consumeWake();
    backend->handler_->onWake();
  }
  static void onTimer(uv_timer_t* handle) { self(handle)->handler_->onTimer(); }
  static void onIdle(uv_idle_t* handle) { self(handle)->handler_->onIdle(); }

  LoopHandler* handler_;
  strata_allocator_t allocator_;
  uv_loop_t loop_{};
  uv_poll_t wake_{};
  uv_timer_t timer_{};
  uv_idle_t idle_{};
  int read_fd_ = -1;
  int write_fd_ = -1;
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
