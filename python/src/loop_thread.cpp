// loop_thread.cpp - runs an instance's loop on its own thread: sleeps on a
// condition variable while idle, runs loop iterations while operations are
// in flight, and destroys the loop when stopped.
#include "loop_thread.h"

#include <pybind11/pybind11.h>

#include <atomic>

#include "errors.h"

namespace strata::python {

struct LoopThread::State {
  strata_hal_loop_t* loop = nullptr;
  std::mutex mutex;
  std::condition_variable wake;
  bool pending = false;  // work was submitted since the last pass
  std::atomic<bool> stopping{false};
  bool closed = false;  // the loop is destroyed (or about to be)
  std::thread::id thread_id;
};

namespace {

void ignoreFence(void*, strata_status_t status) {
  strata_status_free(status);
}

// Makes a blocked strata_hal_loop_run_once return: a wait on a fence that
// is already reached completes on the next iteration.
void poke(strata_hal_loop_t* loop) {
  strata_hal_fence_t* reached = nullptr;
  strata_status_t status =
      strata_hal_fence_create(0, strata_allocator_system(), &reached);
  if (!status) {
    status = strata_hal_loop_wait_fence(loop, reached, 0, ignoreFence, nullptr);
  }
  strata_hal_fence_release(reached);
  strata_status_free(status);
}

}  // namespace

LoopThread::LoopThread() : state_(std::make_shared<State>()) {
  check(strata_hal_loop_create(strata_allocator_system(), &state_->loop));
  thread_ = std::thread(run, state_);
  state_->thread_id = thread_.get_id();
}

LoopThread::~LoopThread() {
  stop();
}

void LoopThread::run(std::shared_ptr<State> state) {
  // One thread state for the thread's life: callbacks then take the GIL
  // without creating and destroying one each time.
  PyGILState_STATE gil = PyGILState_Ensure();
  PyThreadState* thread_state = PyEval_SaveThread();
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(state->mutex);
      state->wake.wait(
          lock, [&] { return state->pending || state->stopping.load(); });
      if (state->stopping.load()) {
        state->closed = true;
        break;
      }
      state->pending = false;
    }
    int more = 1;
    while (more && !state->stopping.load()) {
      strata_status_t status = strata_hal_loop_run_once(state->loop, &more);
      if (status) {
        // A libuv failure; nothing to report it to. Calls in flight are
        // cancelled when the loop is destroyed.
        strata_status_free(status);
        break;
      }
    }
  }
  strata_hal_loop_destroy(state->loop);
  state->loop = nullptr;
  if (!_Py_IsFinalizing()) {
    PyEval_RestoreThread(thread_state);
    PyGILState_Release(gil);
  }
}

bool LoopThread::submit(
    const std::function<strata_status_t(strata_hal_loop_t*)>& submit_fn,
    strata_status_t* out_status) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->stopping.load() || state_->closed) {
    return false;
  }
  *out_status = submit_fn(state_->loop);
  state_->pending = true;
  state_->wake.notify_one();
  return true;
}

void LoopThread::stop() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (!state_->stopping.exchange(true) && !state_->closed) {
      poke(state_->loop);
    }
    state_->wake.notify_one();
  }
  if (!thread_.joinable()) {
    return;
  }
  if (std::this_thread::get_id() == state_->thread_id) {
    thread_.detach();  // called from a callback: the thread ends by itself
  } else {
    thread_.join();
  }
}

}  // namespace strata::python
