/* loop_invoke.h - VM invocations run on a strata_hal_loop (hal/loop.h)
 * without blocking its thread.
 *
 * Each invocation is one loop operation: it runs bytecode on the loop thread
 * until it completes or suspends. When a native function defers on a wait
 * (for example hal.fence.await on a fence that is not reached yet), the loop
 * subscribes to the wait and parks the invocation; the thread that resolves
 * the wait wakes the loop, which resumes the invocation.
 *
 * Ownership: inputs are copied at the call; the context is retained until
 * the callback; outputs and status given to the callback are the callback's.
 *
 * Thread-safety: as strata_hal_loop_submit (any thread, including loop
 * callbacks).
 *
 * C11 and C++.
 */
#ifndef STRATA_MODULES_HAL_LOOP_INVOKE_H_
#define STRATA_MODULES_HAL_LOOP_INVOKE_H_

#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/loop.h"
#include "strata/vm/context.h"
#include "strata/vm/list.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * callback runs on the loop thread exactly once (with CANCELLED when the
 * loop is destroyed first). On an error return (bad inputs, out of memory,
 * the loop being destroyed) the callback never runs. */
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
} /* extern "C" */
#endif

#endif /* STRATA_MODULES_HAL_LOOP_INVOKE_H_ */
