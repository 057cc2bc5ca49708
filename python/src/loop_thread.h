// loop_thread.h - the thread that runs an instance's strata_hal_loop_t, on
// which asynchronous calls complete and their futures are resolved.
#ifndef STRATA_PYTHON_LOOP_THREAD_H_
#define STRATA_PYTHON_LOOP_THREAD_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "strata/runtime.h"

namespace strata::python {

/// Owns a loop and the thread running it. The thread sleeps while nothing
/// is in flight; submit() wakes it. It holds a Python thread state for its
/// whole life, so callbacks take the GIL cheaply (py::gil_scoped_acquire).
///
/// Thread-safety: submit() and stop() may be called from any thread, stop()
/// also from a callback on the loop thread (the thread then finishes by
/// itself). The loop is destroyed on the loop thread after it stops: calls
/// still in flight complete there with CANCELLED.
class LoopThread {
 public:
  /// Creates the loop and starts its thread. Raises on failure.
  LoopThread();
  LoopThread(const LoopThread&) = delete;
  LoopThread& operator=(const LoopThread&) = delete;
  /// Stops the thread (see stop()).
  ~LoopThread();

  /// Runs submit_fn(loop) unless the loop is stopping, then wakes the
  /// thread. Returns false (without calling it) once stop() has been
  /// called. submit_fn must not block; it must not take the GIL if the
  /// caller does not hold it.
  bool submit(
      const std::function<strata_status_t(strata_hal_loop_t*)>& submit_fn,
      strata_status_t* out_status);

  /// Stops the thread: it finishes the iteration it is in, destroys the
  /// loop (cancelling what is in flight) and exits. Waits for it unless
  /// called on the loop thread. The caller must not hold the GIL, which the
  /// cancelled callbacks take. Idempotent.
  void stop();

 private:
  struct State;
  static void run(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace strata::python

#endif  // STRATA_PYTHON_LOOP_THREAD_H_
