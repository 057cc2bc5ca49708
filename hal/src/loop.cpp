// loop.cpp - the loop's scheduler core: steps operations and runs fence
// waits on the loop thread, parks them on subscriptions, resumes them from a
// lock-free queue fed by any thread, and expires deadlines from a timer
// heap. Written against LoopBackend (loop_backend.h); no libuv, no VM here.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "loop_backend.h"
#include "strata/hal/loop.h"

namespace strata::hal {
namespace {

constexpr size_t kNotInHeap = SIZE_MAX;

// One operation submitted to a loop: an operation or a fence wait.
struct Task {
  enum class Kind { kOp, kFenceWait };
  // Where the task is. Starting: submitted, not run yet. Waiting: subscribed
  // to a wait, or its notify is queued. Ready: to run on the next iteration.
  enum class Phase { kStarting, kRunning, kWaiting, kReady };

  // Link in the loop's incoming queue (written by the pushing thread before
  // it publishes the task, read by the loop thread after taking the queue).
  Task* incoming_next = nullptr;
  // Links in the loop's list of live tasks and its ready list (loop thread).
  Task* live_prev = nullptr;
  Task* live_next = nullptr;
  Task* ready_next = nullptr;
  bool live = false;

  strata_hal_loop_t* loop = nullptr;
  strata_allocator_t allocator{};
  Kind kind = Kind::kOp;
  Phase phase = Phase::kStarting;
  void* user = nullptr;

  // The current subscription, if subscribed (loop thread).
  bool subscribed = false;
  int64_t deadline_ns = INT64_MAX;
  size_t heap_index = kNotInHeap;

  // kOp.
  strata_hal_loop_op_t op{};
  strata_hal_loop_wait_t wait{};
  void* wait_token = nullptr;

  // kFenceWait.
  strata_hal_fence_t* fence = nullptr;  // retained
  strata_hal_fence_token_t fence_token = 0;
  strata_hal_loop_fence_fn_t fence_fn = nullptr;
  // Written by the resolving thread before it queues the task.
  strata_status_t fence_status = nullptr;
};

// The loop whose run* is on this thread's stack.
thread_local strata_hal_loop_t* t_running_loop = nullptr;

}  // namespace
}  // namespace strata::hal

using namespace strata::hal;

struct strata_hal_loop_t final : public LoopHandler {
  strata_allocator_t allocator{};
  LoopBackend* backend = nullptr;
  void (*destroy_backend)(LoopBackend*) = nullptr;

  // Tasks pushed by any thread (a Treiber stack, taken whole by the loop).
  std::atomic<Task*> incoming{nullptr};
  // Threads that may still push onto incoming or wake the backend: each
  // armed subscription counts one until its notify has fully returned or
  // it was cancelled, and so does each cross-thread submission in
  // progress. destroy waits for zero before freeing the backend.
  std::atomic<size_t> producers{0};
  // Submitted and not finished.
  std::atomic<size_t> in_flight{0};
  std::atomic<bool> destroying{false};

  // Loop thread only.
  Task* live = nullptr;
  Task* ready_head = nullptr;
  Task* ready_tail = nullptr;
  bool idle_on = false;
  std::vector<Task*> heap;  // min-heap on deadline_ns
  int64_t timer_deadline = INT64_MAX;

  void onWake() override;
  void onTimer() override;
  void onIdle() override;
};

namespace strata::hal {
namespace {

//===--------------------------------------------------------------------===//
// Queues and lists
//===--------------------------------------------------------------------===//

// Any thread. Returns true when the queue was empty, so the caller must wake
// the loop; otherwise a wake for the earlier entries is already on its way
// and the loop will take this one with them.
bool pushIncoming(strata_hal_loop_t* loop, Task* task) {
  Task* head = loop->incoming.load(std::memory_order_relaxed);
  do {
    task->incoming_next = head;
  } while (!loop->incoming.compare_exchange_weak(
      head, task, std::memory_order_release, std::memory_order_relaxed));
  return head == nullptr;
}

// Loop thread: takes everything pushed so far, oldest first.
Task* takeIncoming(strata_hal_loop_t* loop) {
  Task* list = loop->incoming.exchange(nullptr, std::memory_order_acquire);
  Task* reversed = nullptr;
  while (list) {
    Task* next = list->incoming_next;
    list->incoming_next = reversed;
    reversed = list;
    list = next;
  }
  return reversed;
}

void addLive(strata_hal_loop_t* loop, Task* task) {
  task->live = true;
  task->live_prev = nullptr;
  task->live_next = loop->live;
  if (loop->live) {
    loop->live->live_prev = task;
  }
  loop->live = task;
}

void removeLive(strata_hal_loop_t* loop, Task* task) {
  if (!task->live) {
    return;
  }
  if (task->live_prev) {
    task->live_prev->live_next = task->live_next;
  } else {
    loop->live = task->live_next;
  }
  if (task->live_next) {
    task->live_next->live_prev = task->live_prev;
  }
  task->live = false;
}

void pushReady(strata_hal_loop_t* loop, Task* task) {
  task->ready_next = nullptr;
  if (loop->ready_tail) {
    loop->ready_tail->ready_next = task;
  } else {
    loop->ready_head = task;
  }
  loop->ready_tail = task;
  if (!loop->idle_on) {
    loop->idle_on = true;
    loop->backend->setIdle(true);
  }
}

//===--------------------------------------------------------------------===//
// Deadline heap
//===--------------------------------------------------------------------===//

void heapSet(strata_hal_loop_t* loop, size_t i, Task* task) {
  loop->heap[i] = task;
  task->heap_index = i;
}

void heapSiftUp(strata_hal_loop_t* loop, size_t i) {
  Task* task = loop->heap[i];
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (loop->heap[parent]->deadline_ns <= task->deadline_ns) {
      break;
    }
    heapSet(loop, i, loop->heap[parent]);
    i = parent;
  }
  heapSet(loop, i, task);
}

void heapSiftDown(strata_hal_loop_t* loop, size_t i) {
  Task* task = loop->heap[i];
  size_t n = loop->heap.size();
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) {
      break;
    }
    if (child + 1 < n &&
        loop->heap[child + 1]->deadline_ns < loop->heap[child]->deadline_ns) {
      ++child;
    }
    if (task->deadline_ns <= loop->heap[child]->deadline_ns) {
      break;
    }
    heapSet(loop, i, loop->heap[child]);
    i = child;
  }
  heapSet(loop, i, task);
}

void heapInsert(strata_hal_loop_t* loop, Task* task) {
  loop->heap.push_back(task);
  heapSiftUp(loop, loop->heap.size() - 1);
}

void heapRemove(strata_hal_loop_t* loop, Task* task) {
  size_t i = task->heap_index;
  if (i == kNotInHeap) {
    return;
  }
  task->heap_index = kNotInHeap;
  Task* last = loop->heap.back();
  loop->heap.pop_back();
  if (last == task) {
    return;
  }
  heapSet(loop, i, last);
  heapSiftUp(loop, i);
  heapSiftDown(loop, last->heap_index);
}

void rearmTimer(strata_hal_loop_t* loop) {
  int64_t deadline =
      loop->heap.empty() ? INT64_MAX : loop->heap[0]->deadline_ns;
  if (deadline != loop->timer_deadline) {
    loop->timer_deadline = deadline;
    loop->backend->setTimer(deadline);
  }
}

//===--------------------------------------------------------------------===//
// Tasks
//===--------------------------------------------------------------------===//

// After the loop thread handled something: the timer follows the heap, and
// the loop stays alive while anything is in flight.
void settle(strata_hal_loop_t* loop) {
  rearmTimer(loop);
  loop->backend->setAlive(loop->in_flight.load(std::memory_order_acquire) > 0);
}

// Ends a task: frees it, then runs its callback (status owned by the
// callback).
void finish(strata_hal_loop_t* loop, Task* task, strata_status_t status) {
  removeLive(loop, task);
  heapRemove(loop, task);
  Task::Kind kind = task->kind;
  void* user = task->user;
  strata_hal_loop_op_t op = task->op;
  strata_hal_loop_fence_fn_t fence_fn = task->fence_fn;
  strata_hal_fence_release(task->fence);
  strata_allocator_t allocator = task->allocator;
  task->~Task();
  strata_allocator_free(allocator, task);
  loop->in_flight.fetch_sub(1, std::memory_order_acq_rel);
  if (kind == Task::Kind::kOp) {
    op.complete(op.user, status);
  } else {
    fence_fn(user, status);
  }
}

// Any thread: a subscription's notify. Queues the task for the loop thread.
// Reads the loop before publishing the task: from then on the loop thread
// may finish and free it. The loop itself stays alive until producers
// drops.
void queueNotified(Task* task) {
  strata_hal_loop_t* loop = task->loop;
  if (pushIncoming(loop, task)) {
    loop->backend->wake();
  }
  loop->producers.fetch_sub(1, std::memory_order_acq_rel);
}

void onOpNotify(void* user) { queueNotified(static_cast<Task*>(user)); }

void onFenceResolved(void* user, strata_status_t status) {
  auto* task = static_cast<Task*>(user);
  task->fence_status = status;
  queueNotified(task);
}

void armDeadline(strata_hal_loop_t* loop, Task* task, int64_t deadline_ns) {
  task->deadline_ns = deadline_ns == 0 ? INT64_MAX : deadline_ns;
  if (task->deadline_ns != INT64_MAX) {
    heapInsert(loop, task);
    rearmTimer(loop);
  }
}

// Steps an operation, then parks it on its wait, queues it again, or ends
// it.
void stepOp(strata_hal_loop_t* loop, Task* task, int timed_out) {
  task->phase = Task::Phase::kRunning;
  strata_hal_loop_wait_t wait{};
  strata_status_t status = nullptr;
  switch (task->op.step(task->op.user, timed_out, &wait, &status)) {
    case STRATA_HAL_LOOP_STEP_DONE: finish(loop, task, status); return;
    case STRATA_HAL_LOOP_STEP_YIELD:
      task->phase = Task::Phase::kReady;
      pushReady(loop, task);
      return;
    case STRATA_HAL_LOOP_STEP_WAIT: break;
    default:
      strata_status_free(status);
      finish(loop, task,
             strata_make_status(STRATA_STATUS_INTERNAL,
                                "a loop operation's step returned neither "
                                "DONE, WAIT nor YIELD"));
      return;
  }
  strata_status_free(status);
  if (!wait.subscribe || !wait.unsubscribe) {
    finish(loop, task,
           strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "a loop operation waited without both "
                              "subscribe and unsubscribe; the loop needs both "
                              "to honour deadlines and to be destroyed"));
    return;
  }
  task->wait = wait;
  task->phase = Task::Phase::kWaiting;
  loop->producers.fetch_add(1, std::memory_order_acq_rel);
  status = wait.subscribe(wait.user, onOpNotify, task, &task->wait_token);
  if (status) {
    loop->producers.fetch_sub(1, std::memory_order_acq_rel);
    finish(loop, task, status);
    return;
  }
  // notify may already be queued (the wait was over): that is fine, the
  // loop thread takes it after this returns.
  task->subscribed = true;
  armDeadline(loop, task, wait.deadline_ns);
}

void startFenceWait(strata_hal_loop_t* loop, Task* task) {
  task->phase = Task::Phase::kWaiting;
  loop->producers.fetch_add(1, std::memory_order_acq_rel);
  strata_status_t status = strata_hal_fence_subscribe(
      task->fence, task->allocator, onFenceResolved, task, &task->fence_token);
  if (status) {
    loop->producers.fetch_sub(1, std::memory_order_acq_rel);
    finish(loop, task, status);
    return;
  }
  task->subscribed = true;
  armDeadline(loop, task, task->deadline_ns);
}

void start(strata_hal_loop_t* loop, Task* task) {
  if (task->kind == Task::Kind::kOp) {
    stepOp(loop, task, /*timed_out=*/0);
  } else {
    startFenceWait(loop, task);
  }
}

// Loop thread: a task came back through the incoming queue.
void onIncoming(strata_hal_loop_t* loop, Task* task) {
  if (task->phase == Task::Phase::kStarting) {
    addLive(loop, task);
    start(loop, task);
    return;
  }
  // Notified: the subscription is over.
  task->subscribed = false;
  heapRemove(loop, task);
  if (task->kind == Task::Kind::kOp) {
    stepOp(loop, task, /*timed_out=*/0);
  } else {
    strata_status_t status = task->fence_status;
    task->fence_status = nullptr;
    finish(loop, task, status);
  }
}

// Cancels a task's subscription. Returns true when its notify will never
// run.
bool cancelSubscription(strata_hal_loop_t* loop, Task* task) {
  int cancelled = 0;
  if (task->kind == Task::Kind::kOp) {
    cancelled = task->wait.unsubscribe(task->wait.user, task->wait_token);
  } else {
    cancelled = strata_hal_fence_unsubscribe(task->fence, task->fence_token);
  }
  if (cancelled) {
    task->subscribed = false;
    loop->producers.fetch_sub(1, std::memory_order_acq_rel);
  }
  return cancelled != 0;
}

void drainIncoming(strata_hal_loop_t* loop) {
  Task* task = takeIncoming(loop);
  while (task) {
    Task* next = task->incoming_next;
    task->incoming_next = nullptr;
    onIncoming(loop, task);
    task = next;
  }
}

void finishDrain(strata_hal_loop_t* loop) {
  drainIncoming(loop);
  settle(loop);
}

strata_status_t submit(strata_hal_loop_t* loop, Task* task) {
  loop->in_flight.fetch_add(1, std::memory_order_acq_rel);
  if (t_running_loop == loop) {
    // On the loop thread (a callback submitting more work): no need to go
    // through the queue and wake ourselves.
    addLive(loop, task);
    pushReady(loop, task);
    settle(loop);
    return nullptr;
  }
  loop->producers.fetch_add(1, std::memory_order_acq_rel);
  if (pushIncoming(loop, task)) {
    loop->backend->wake();
  }
  loop->producers.fetch_sub(1, std::memory_order_acq_rel);
  return nullptr;
}

strata_status_t newTask(strata_hal_loop_t* loop, strata_allocator_t allocator,
                        Task** out_task) {
  *out_task = nullptr;
  void* memory = strata_allocator_alloc(allocator, sizeof(Task), alignof(Task));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory submitting to a loop");
  }
  Task* task = new (memory) Task();
  task->loop = loop;
  task->allocator = allocator;
  *out_task = task;
  return nullptr;
}

strata_status_t runLoop(strata_hal_loop_t* loop, RunMode mode, int* out_more) {
  if (out_more) {
    *out_more = 0;
  }
  if (t_running_loop) {
    return strata_make_status(
        STRATA_STATUS_FAILED_PRECONDITION,
        "strata_hal_loop_run* called from inside a loop callback");
  }
  t_running_loop = loop;
  if (mode == RunMode::kDefault) {
    for (;;) {
      finishDrain(loop);
      if (loop->in_flight.load(std::memory_order_acquire) == 0) {
        break;
      }
      loop->backend->run(RunMode::kDefault);
    }
  } else {
    finishDrain(loop);
    loop->backend->run(mode);
    finishDrain(loop);
  }
  t_running_loop = nullptr;
  if (out_more) {
    *out_more = loop->in_flight.load(std::memory_order_acquire) > 0;
  }
  return nullptr;
}

}  // namespace
}  // namespace strata::hal

//===----------------------------------------------------------------------===//
// Backend callbacks (loop thread)
//===----------------------------------------------------------------------===//

void strata_hal_loop_t::onWake() { finishDrain(this); }

void strata_hal_loop_t::onTimer() {
  timer_deadline = INT64_MAX;  // the backend's timer is one-shot
  int64_t now = backend->nowNs();
  while (!heap.empty() && heap[0]->deadline_ns <= now) {
    Task* task = heap[0];
    heapRemove(this, task);
    if (!cancelSubscription(this, task)) {
      // Its notify is on its way and wins: the wait was over in time.
      continue;
    }
    if (task->kind == Task::Kind::kOp) {
      stepOp(this, task, /*timed_out=*/1);
    } else {
      finish(this, task,
             strata_make_status(STRATA_STATUS_DEADLINE_EXCEEDED,
                                "deadline passed waiting for a fence on the "
                                "loop"));
    }
  }
  settle(this);
}

void strata_hal_loop_t::onIdle() {
  // Only what is ready now: a task that yields again waits for the next
  // iteration, so I/O and timers keep their turn.
  Task* task = ready_head;
  ready_head = ready_tail = nullptr;
  while (task) {
    Task* next = task->ready_next;
    task->ready_next = nullptr;
    start(this, task);
    task = next;
  }
  if (!ready_head && idle_on) {
    idle_on = false;
    backend->setIdle(false);
  }
  settle(this);
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

namespace strata::hal {

strata_status_t createLoopWithBackend(strata_allocator_t allocator,
                                      LoopBackendFactory factory,
                                      void* factory_user,
                                      void (*destroy_backend)(LoopBackend*),
                                      strata_hal_loop_t** out_loop) {
  *out_loop = nullptr;
  void* memory = strata_allocator_alloc(allocator, sizeof(strata_hal_loop_t),
                                        alignof(strata_hal_loop_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a loop");
  }
  auto* loop = new (memory) strata_hal_loop_t();
  loop->allocator = allocator;
  strata_status_t status = factory(factory_user, loop, &loop->backend);
  if (status) {
    loop->~strata_hal_loop_t();
    strata_allocator_free(allocator, memory);
    return status;
  }
  loop->destroy_backend = destroy_backend;
  *out_loop = loop;
  return nullptr;
}

}  // namespace strata::hal

extern "C" {

strata_status_t strata_hal_loop_create(strata_allocator_t allocator,
                                       strata_hal_loop_t** out_loop) {
  struct Uv {
    static strata_status_t make(void* user, LoopHandler* handler,
                                LoopBackend** out_backend) {
      return createUvLoopBackend(
          handler, *static_cast<strata_allocator_t*>(user), out_backend);
    }
  };
  return createLoopWithBackend(allocator, Uv::make, &allocator,
                               destroyUvLoopBackend, out_loop);
}

void strata_hal_loop_destroy(strata_hal_loop_t* loop) {
  if (!loop) {
    return;
  }
  loop->destroying.store(true, std::memory_order_release);
  // Take back every subscription that has not notified yet.
  for (Task* task = loop->live; task; task = task->live_next) {
    if (task->subscribed) {
      cancelSubscription(loop, task);
    }
  }
  // The rest are notifying right now: wait for their pushes (and wakes) to
  // return, then nothing else touches the loop.
  while (loop->producers.load(std::memory_order_acquire) != 0) {
    std::this_thread::yield();
  }
  Task* task = takeIncoming(loop);
  while (task) {
    Task* next = task->incoming_next;
    task->incoming_next = nullptr;
    if (task->phase == Task::Phase::kStarting) {
      addLive(loop, task);
    }
    task = next;
  }
  loop->ready_head = loop->ready_tail = nullptr;
  while (loop->live) {
    Task* victim = loop->live;
    strata_status_free(victim->fence_status);
    victim->fence_status = nullptr;
    finish(
        loop, victim,
        strata_make_status(STRATA_STATUS_CANCELLED, "the loop was destroyed"));
  }
  loop->heap.clear();
  loop->destroy_backend(loop->backend);
  strata_allocator_t allocator = loop->allocator;
  loop->~strata_hal_loop_t();
  strata_allocator_free(allocator, loop);
}

strata_status_t strata_hal_loop_run(strata_hal_loop_t* loop) {
  return runLoop(loop, RunMode::kDefault, nullptr);
}

strata_status_t strata_hal_loop_run_once(strata_hal_loop_t* loop,
                                         int* out_more) {
  return runLoop(loop, RunMode::kOnce, out_more);
}

strata_status_t strata_hal_loop_run_nowait(strata_hal_loop_t* loop,
                                           int* out_more) {
  return runLoop(loop, RunMode::kNoWait, out_more);
}

size_t strata_hal_loop_in_flight(const strata_hal_loop_t* loop) {
  return loop->in_flight.load(std::memory_order_acquire);
}

strata_status_t strata_hal_loop_wait_fence(strata_hal_loop_t* loop,
                                           strata_hal_fence_t* fence,
                                           int64_t deadline_ns,
                                           strata_hal_loop_fence_fn_t callback,
                                           void* user) {
  if (loop->destroying.load(std::memory_order_acquire)) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "the loop is being destroyed");
  }
  Task* task = nullptr;
  STRATA_RETURN_IF_ERROR(newTask(loop, loop->allocator, &task));
  task->kind = Task::Kind::kFenceWait;
  task->fence = fence;
  strata_hal_fence_retain(fence);
  task->fence_fn = callback;
  task->user = user;
  task->deadline_ns = deadline_ns;
  return submit(loop, task);
}

strata_status_t strata_hal_loop_submit(strata_hal_loop_t* loop,
                                       strata_hal_loop_op_t op) {
  if (!op.step || !op.complete) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "a loop operation needs step and complete");
  }
  if (loop->destroying.load(std::memory_order_acquire)) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "the loop is being destroyed");
  }
  Task* task = nullptr;
  STRATA_RETURN_IF_ERROR(newTask(loop, loop->allocator, &task));
  task->kind = Task::Kind::kOp;
  task->op = op;
  return submit(loop, task);
}

}  // extern "C"
