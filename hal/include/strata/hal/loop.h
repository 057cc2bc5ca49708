/* loop.h - an event loop that runs VM invocations and fence waits without
 * blocking its thread.
 *
 * A loop owns a private libuv loop (libuv types never appear here). The
 * thread that calls strata_hal_loop_run* is the loop thread: every callback
 * below runs there, VM bytecode runs there, and nothing there blocks. When
 * an invocation defers on a wait (for example hal.fence.await on a fence
 * that is not reached yet), the loop subscribes to the wait and parks the
 * invocation; the thread that resolves the wait (a worker signalling a
 * semaphore) only pushes a note onto a lock-free queue and wakes the loop,
 * which resumes the invocation. Deadlines are kept in a timer heap; an
 * expired wait is cancelled and the invocation resumes marked timed out, so
 * the deferring function reports the timeout its own way.
 *
 * Thread-safety: strata_hal_loop_invoke and strata_hal_loop_wait_fence may
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
#include "strata/vm/context.h"
#include "strata/vm/list.h"

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

/* Receives the outcome of an invocation, on the loop thread. On success
 * status is OK and outputs holds the results (owned by the callback, which
 * must release it); on failure status is the error with its VM backtrace
 * (owned by the callback) and outputs is NULL. */
typedef void (*strata_hal_loop_invoke_fn_t)(void* user, strata_status_t status,
                                            strata_vm_list_t* outputs);

/* Calls function asynchronously on the loop thread. inputs (borrowed, may
 * be NULL) are copied now, so they may change or die when this returns; the
 * context is retained until the callback. The invocation runs until it
 * completes or suspends:
 *   - a deferral whose wait can subscribe parks it until the wait notifies
 *     (or its deadline passes: the deferred call then reruns marked timed
 *     out, see strata_vm_native_call_timed_out);
 *   - a deferral whose wait can only block (or can subscribe but not
 *     unsubscribe) fails the invocation with FAILED_PRECONDITION: the loop
 *     thread never blocks;
 *   - vm.yield (or a deferral without any wait) resumes it on the next loop
 *     iteration.
 * callback runs on the loop thread exactly once. On an error return (bad
 * inputs, out of memory) the callback never runs. */
strata_status_t strata_hal_loop_invoke(strata_hal_loop_t* loop,
                                       strata_vm_context_t* context,
                                       strata_vm_function_t function,
                                       const strata_vm_list_t* inputs,
                                       strata_allocator_t allocator,
                                       strata_hal_loop_invoke_fn_t callback,
                                       void* user);

/* strata_hal_loop_invoke with a deadline (absolute CLOCK_MONOTONIC ns; 0:
 * none; strata_vm_invocation_set_deadline): bytecode that runs past it and
 * waits that outlast it end the invocation with DEADLINE_EXCEEDED. */
strata_status_t strata_hal_loop_invoke_until(
    strata_hal_loop_t* loop, strata_vm_context_t* context,
    strata_vm_function_t function, const strata_vm_list_t* inputs,
    int64_t deadline_ns, strata_allocator_t allocator,
    strata_hal_loop_invoke_fn_t callback, void* user);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* STRATA_HAL_LOOP_H_ */
