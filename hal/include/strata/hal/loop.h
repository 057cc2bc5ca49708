/* loop.h - an event loop that runs operations and fence waits without
 * blocking its thread.
 *
 * A loop owns a private libuv loop (libuv types never appear here). The
 * thread that calls strata_hal_loop_run* is the loop thread: every callback
 * below runs there, operations step there, and nothing there blocks. An
 * operation (strata_hal_loop_op_t) steps until it is done; when it must
 * wait, it hands the loop a wait it can subscribe to, and the loop parks it;
 * the thread that resolves the wait (a worker signalling a semaphore) only
 * pushes a note onto a lock-free queue and wakes the loop, which steps the
 * operation again. Deadlines are kept in a timer heap; an expired wait is
 * cancelled and the operation steps again marked timed out, so it reports
 * the timeout its own way.
 *
 * The loop knows nothing of the VM: running VM invocations on it is the hal
 * VM module's part (strata/modules/hal/loop_invoke.h), an operation like any
 * other.
 *
 * Ownership: the loop owns what it allocates for each operation; a fence
 * given to strata_hal_loop_wait_fence is retained until its callback; an
 * operation's state belongs to the operation and is released by its
 * complete callback.
 *
 * Thread-safety: strata_hal_loop_submit and strata_hal_loop_wait_fence may
 * be called from any thread, including from callbacks on the loop thread.
 * strata_hal_loop_run* must be called by one thread at a time, never from
 * inside a loop callback. strata_hal_loop_destroy must not race with any
 * other call on the loop.
 *
 * C11 and C++.
 */
#ifndef STRATA_HAL_LOOP_H_
#define STRATA_HAL_LOOP_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/semaphore.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct strata_hal_loop_t strata_hal_loop_t;

/* Creates a loop over its own libuv loop. allocator serves the loop and the
 * bookkeeping of each operation submitted to it. */
strata_status_t strata_hal_loop_create(strata_allocator_t allocator,
                                       strata_hal_loop_t** out_loop);

/* Destroys the loop. Operations still in flight are cancelled: each
 * callback runs once, on the calling thread, with CANCELLED ("the loop was
 * destroyed"), and everything they held is released. Waits whose callback
 * is already on its way from another thread are awaited (that is a push
 * onto the loop's queue, never longer). Must not be called from a loop
 * callback. NULL is fine. */
void strata_hal_loop_destroy(strata_hal_loop_t* loop);

/* Runs until no operation is in flight: every operation submitted before it
 * returns (from any thread) has completed and had its callback run. Returns
 * at once when idle. */
strata_status_t strata_hal_loop_run(strata_hal_loop_t* loop);
/* Runs one iteration, blocking for I/O (a wake-up or a timer) if there is
 * work in flight. *out_more (optional) is 1 while operations are in flight. */
strata_status_t strata_hal_loop_run_once(strata_hal_loop_t* loop,
                                         int* out_more);
/* Runs one iteration without blocking; for embedding in another loop. */
strata_status_t strata_hal_loop_run_nowait(strata_hal_loop_t* loop,
                                           int* out_more);

/* Number of operations submitted and not yet completed (approximate when
 * read off the loop thread). */
size_t strata_hal_loop_in_flight(const strata_hal_loop_t* loop);

/* Receives the outcome of a fence wait, on the loop thread; status is owned
 * by the callback. */
typedef void (*strata_hal_loop_fence_fn_t)(void* user, strata_status_t status);

/* Waits for fence (retained until the callback) without blocking: callback
 * runs on the loop thread exactly once, with OK when the fence is reached,
 * a copy of its failure, DEADLINE_EXCEEDED once deadline_ns (absolute
 * CLOCK_MONOTONIC; 0 or STRATA_HAL_INFINITE_FUTURE: none) has passed, or
 * CANCELLED when the loop is destroyed first. On an error return the
 * callback never runs. */
strata_status_t strata_hal_loop_wait_fence(strata_hal_loop_t* loop,
                                           strata_hal_fence_t* fence,
                                           int64_t deadline_ns,
                                           strata_hal_loop_fence_fn_t callback,
                                           void* user);

/* Something an operation waits for, which the loop subscribes to. */
typedef struct strata_hal_loop_wait_t {
  /* Arranges for notify(notify_user) to run once, on any thread, when the
   * wait is over; *out_token names the subscription for unsubscribe. notify
   * may run before subscribe returns. Required. */
  strata_status_t (*subscribe)(void* user, strata_hal_notify_fn_t notify,
                               void* notify_user, void** out_token);
  /* Cancels a subscription. Returns 1 when notify will never run, 0 when it
   * has run or is running. Required: the loop cancels on deadlines and on
   * destroy. */
  int (*unsubscribe)(void* user, void* token);
  void* user;
  /* Absolute CLOCK_MONOTONIC ns after which the loop stops waiting and
   * steps the operation marked timed out; 0 or INT64_MAX: none. */
  int64_t deadline_ns;
} strata_hal_loop_wait_t;

/* What an operation's step asks of the loop. */
typedef enum strata_hal_loop_step_t {
  /* The operation is over: its complete callback runs with *out_status. */
  STRATA_HAL_LOOP_STEP_DONE = 0,
  /* Park until *out_wait is over (or its deadline passes), then step. */
  STRATA_HAL_LOOP_STEP_WAIT = 1,
  /* Step again on the next loop iteration. */
  STRATA_HAL_LOOP_STEP_YIELD = 2,
} strata_hal_loop_step_t;

/* An operation the loop runs. Every callback runs on the loop thread. */
typedef struct strata_hal_loop_op_t {
  /* Advances the operation. timed_out is 1 when the previous wait's deadline
   * passed before the wait was over. For DONE, *out_status (initially NULL)
   * is the outcome, owned by the loop until it hands it to complete. For
   * WAIT, *out_wait is filled in. Required. */
  strata_hal_loop_step_t (*step)(void* user, int timed_out,
                                 strata_hal_loop_wait_t* out_wait,
                                 strata_status_t* out_status);
  /* Ends the operation, exactly once: with its outcome after DONE; with the
   * subscribe failure when a wait cannot be subscribed; FAILED_PRECONDITION
   * when a WAIT lacks subscribe or unsubscribe; or CANCELLED ("the loop was
   * destroyed") when the loop is destroyed first (then on the destroying
   * thread). status is owned by the callback. The loop has forgotten the
   * operation before this runs. Required. */
  void (*complete)(void* user, strata_status_t status);
  void* user;
} strata_hal_loop_op_t;

/* Runs op asynchronously on the loop thread: its first step comes when the
 * loop next turns, never inside this call. On an error return (step or
 * complete missing, the loop being destroyed, out of memory) no callback
 * of op ever runs. */
strata_status_t strata_hal_loop_submit(strata_hal_loop_t* loop,
                                       strata_hal_loop_op_t op);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* STRATA_HAL_LOOP_H_ */
