/* semaphore.h - timeline semaphores and fences.
 *
 * A semaphore holds a uint64 value that only grows. Waiters ask for "value
 * >= v". A semaphore can fail: the failure is sticky, carries a status, and
 * every current and future waiter sees a copy of it, so nothing waits
 * forever on work that died. A fence is a set of (semaphore, value) pairs,
 * reached when every pair is reached, failed when any semaphore failed.
 *
 * Semaphores and fences are ref objects (strata/vm/ref.h: "hal.semaphore",
 * "hal.fence"), so VM registers can hold them, and are thread-safe: any thread
 * may signal, fail, query, wait or add timepoints. A fence's set of pairs is
 * the exception: build it (insert) before sharing the fence; the other fence
 * calls are thread-safe.
 *
 * Callbacks (timepoints, fence subscriptions) run outside every internal
 * lock, so they may call back into these functions, but they run on the
 * signalling thread and must be short and never block.
 *
 * C11 and C++.
 */
#ifndef STRATA_HAL_SEMAPHORE_H_
#define STRATA_HAL_SEMAPHORE_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Deadlines are absolute CLOCK_MONOTONIC nanoseconds. */
#define STRATA_HAL_INFINITE_FUTURE INT64_MAX
#define STRATA_HAL_IMMEDIATE_PAST INT64_MIN
int64_t strata_hal_now_ns(void);
/* now + timeout, saturating; a negative timeout means no deadline. */
int64_t strata_hal_deadline_after_ns(int64_t timeout_ns);

/*===------------------------------------------------------------------===*
 * Semaphores
 *===------------------------------------------------------------------===*/

typedef struct strata_hal_semaphore_t strata_hal_semaphore_t;

const strata_vm_ref_type_t* strata_hal_semaphore_type(void);

strata_status_t strata_hal_semaphore_create(
    uint64_t initial_value, strata_allocator_t allocator,
    strata_hal_semaphore_t** out_semaphore);

/* The current value. When failed, returns a copy of the failure (caller
 * owns it) and *out_value is the value reached before the failure. */
strata_status_t strata_hal_semaphore_query(strata_hal_semaphore_t* semaphore,
                                           uint64_t* out_value);

/* Raises the value to new_value and runs the timepoints it reaches.
 * new_value <= the current value is FAILED_PRECONDITION naming both values;
 * signalling a failed semaphore returns a copy of its failure. */
strata_status_t strata_hal_semaphore_signal(strata_hal_semaphore_t* semaphore,
                                            uint64_t new_value);

/* Fails the semaphore, taking ownership of status (which must not be OK).
 * The first failure wins; later ones are freed. Every pending timepoint runs
 * with a copy of the failure. */
void strata_hal_semaphore_fail(strata_hal_semaphore_t* semaphore,
                               strata_status_t status);

/* Blocks until value >= value, failure (returns a copy of it) or deadline
 * (DEADLINE_EXCEEDED naming the value waited for and the value reached). */
strata_status_t strata_hal_semaphore_wait(strata_hal_semaphore_t* semaphore,
                                          uint64_t value, int64_t deadline_ns);

/* A one-shot callback for "value >= v or failed". The callback runs exactly
 * once: at once on the calling thread if already resolved, otherwise on the
 * thread that signals or fails the semaphore (so it must be short and must
 * not block). status is OK or a copy of the failure that the callback owns.
 * The caller owns the timepoint storage and must keep it alive until the
 * callback has run or strata_hal_semaphore_cancel_timepoint returned 1.
 * An armed timepoint holds a reference to its semaphore, so a semaphore is
 * never destroyed with callbacks pending. */
typedef void (*strata_hal_timepoint_fn_t)(void* user, strata_status_t status);
/* A notification without an outcome (fence subscriptions that only wake a
 * waiter, loop waits). */
typedef void (*strata_hal_notify_fn_t)(void* user);
typedef struct strata_hal_timepoint_t {
  /* Owned by the semaphore while armed. */
  struct strata_hal_timepoint_t* next;
  struct strata_hal_timepoint_t* prev;
  /* The semaphore while armed, NULL once run, cancelled or never armed
   * (read atomically). Zero-initialize a timepoint before first use. */
  strata_hal_semaphore_t* semaphore;
  uint64_t value;
  strata_hal_timepoint_fn_t fn;
  void* user;
} strata_hal_timepoint_t;

void strata_hal_semaphore_add_timepoint(strata_hal_semaphore_t* semaphore,
                                        uint64_t value,
                                        strata_hal_timepoint_fn_t fn,
                                        void* user,
                                        strata_hal_timepoint_t* timepoint);
/* Disarms a timepoint that has not run: returns 1 if it was removed (the
 * callback will never run), 0 if it already ran, is running, or was never
 * armed. The caller must hold a reference to the timepoint's semaphore for
 * the duration of the call (the semaphore may otherwise die as soon as the
 * callback has run). */
int strata_hal_semaphore_cancel_timepoint(strata_hal_timepoint_t* timepoint);

static inline strata_vm_ref_object_t* strata_hal_semaphore_as_ref(
    strata_hal_semaphore_t* semaphore) {
  return (strata_vm_ref_object_t*)semaphore;
}
strata_hal_semaphore_t* strata_hal_semaphore_from_ref(
    strata_vm_ref_object_t* ref);
static inline void strata_hal_semaphore_retain(
    strata_hal_semaphore_t* semaphore) {
  strata_vm_ref_retain((strata_vm_ref_object_t*)semaphore);
}
static inline void strata_hal_semaphore_release(
    strata_hal_semaphore_t* semaphore) {
  strata_vm_ref_release((strata_vm_ref_object_t*)semaphore);
}

/*===------------------------------------------------------------------===*
 * Fences
 *===------------------------------------------------------------------===*/

typedef struct strata_hal_fence_t strata_hal_fence_t;

const strata_vm_ref_type_t* strata_hal_fence_type(void);

/* An empty fence (already reached) with room for capacity pairs. */
strata_status_t strata_hal_fence_create(size_t capacity,
                                        strata_allocator_t allocator,
                                        strata_hal_fence_t** out_fence);
/* A fence holding one new semaphore at value 1, initially at 0: the usual
 * "signal when this work is done" fence. */
strata_status_t strata_hal_fence_create_pending(
    strata_allocator_t allocator, strata_hal_fence_t** out_fence);
/* Adds (semaphore, value); a semaphore already present keeps the max. */
strata_status_t strata_hal_fence_insert(strata_hal_fence_t* fence,
                                        strata_hal_semaphore_t* semaphore,
                                        uint64_t value);
/* A new fence reached when all of fences are (NULL entries are skipped). */
strata_status_t strata_hal_fence_join(strata_hal_fence_t* const* fences,
                                      size_t count,
                                      strata_allocator_t allocator,
                                      strata_hal_fence_t** out_fence);

size_t strata_hal_fence_count(const strata_hal_fence_t* fence);
/* Pair i, borrowed. */
void strata_hal_fence_at(const strata_hal_fence_t* fence, size_t i,
                         strata_hal_semaphore_t** out_semaphore,
                         uint64_t* out_value);

/* 1 if reached, 0 if pending; a failure returns a copy of the status. */
strata_status_t strata_hal_fence_query(strata_hal_fence_t* fence,
                                       int* out_reached);
/* Signals every semaphore to its value. */
strata_status_t strata_hal_fence_signal(strata_hal_fence_t* fence);
/* Fails every semaphore with copies of status (taken). */
void strata_hal_fence_fail(strata_hal_fence_t* fence, strata_status_t status);
/* Blocks until reached, failed or the deadline. */
strata_status_t strata_hal_fence_wait(strata_hal_fence_t* fence,
                                      int64_t deadline_ns);

/* Calls fn(user, status) once when the whole fence is reached or any part
 * failed (status OK or an owned copy of the failure); at once when already
 * resolved. Runs on whatever thread resolves it. Allocates its bookkeeping
 * from allocator. The fence is retained until the callback has run. */
strata_status_t strata_hal_fence_on_resolved(strata_hal_fence_t* fence,
                                             strata_allocator_t allocator,
                                             strata_hal_timepoint_fn_t fn,
                                             void* user);

/* A cancellable strata_hal_fence_on_resolved, for hosts with timeouts.
 *
 * Identifies a subscription to a fence. Tokens are never reused within a
 * fence, so a stale token is harmless. 0 names no subscription: the callback
 * already ran inside strata_hal_fence_subscribe. */
typedef uint64_t strata_hal_fence_token_t;

/* Like strata_hal_fence_on_resolved, and *out_token names the subscription
 * for strata_hal_fence_unsubscribe. fn runs exactly once unless unsubscribe
 * returns 1. The subscription frees itself once fn has returned (or once it
 * is cancelled); unsubscribe is never required. On failure (out of memory)
 * fn never runs and *out_token is 0. */
strata_status_t strata_hal_fence_subscribe(strata_hal_fence_t* fence,
                                           strata_allocator_t allocator,
                                           strata_hal_timepoint_fn_t fn,
                                           void* user,
                                           strata_hal_fence_token_t* out_token);
/* Cancels a subscription. Returns 1 when fn will never run (everything the
 * subscription held is released), 0 when fn has run, is running or is about
 * to run on another thread (and the subscription frees itself after it),
 * or when token names nothing (0, stale, or another fence's). Safe in any
 * interleaving with the resolving threads, and any number of times. The
 * caller must hold a reference to fence. */
int strata_hal_fence_unsubscribe(strata_hal_fence_t* fence,
                                 strata_hal_fence_token_t token);

/* Like strata_hal_fence_subscribe, but notify(user) runs instead of fn and
 * learns nothing of the outcome (a failure is found with
 * strata_hal_fence_query): resolving the fence wakes a waiter without copying
 * its status. The subscription is allocated with the fence's allocator. Same
 * token and unsubscribe rules. */
strata_status_t strata_hal_fence_subscribe_notify(
    strata_hal_fence_t* fence, strata_hal_notify_fn_t notify, void* user,
    strata_hal_fence_token_t* out_token);

static inline strata_vm_ref_object_t* strata_hal_fence_as_ref(
    strata_hal_fence_t* fence) {
  return (strata_vm_ref_object_t*)fence;
}
strata_hal_fence_t* strata_hal_fence_from_ref(strata_vm_ref_object_t* ref);
static inline void strata_hal_fence_retain(strata_hal_fence_t* fence) {
  strata_vm_ref_retain((strata_vm_ref_object_t*)fence);
}
static inline void strata_hal_fence_release(strata_hal_fence_t* fence) {
  strata_vm_ref_release((strata_vm_ref_object_t*)fence);
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* STRATA_HAL_SEMAPHORE_H_ */
