/* device.h - devices and their queue.
 *
 * Two local devices run kernels on host threads:
 *   local-sync  runs each submission inline: on the submitting thread when
 *               its wait fence is already reached, otherwise on the thread
 *               that reaches it;
 *   local-task  runs submissions on a pool of worker threads (default: one
 *               per core), workgroups claimed by an atomic counter, with no
 *               allocation per dispatch.
 * Queue operations are asynchronous: each waits for its wait fence (NULL:
 * none), does its work, then signals its signal fence (NULL: none). If the
 * wait fence fails, or the work fails (a kernel returns non-zero), the signal
 * fence fails with a status that names the failing dispatch, so every waiter
 * sees the error; nothing hangs. A queue operation that is rejected (returns
 * an error) fails its signal fence with a copy of that error too. Releasing
 * the last device reference fails the signal fences of submissions still
 * waiting on their wait fences (CANCELLED) and lets running work finish.
 *
 * Devices are thread-safe and are VM ref objects ("hal.device").
 * C11 and C++.
 */
#ifndef STRATA_HAL_DEVICE_H_
#define STRATA_HAL_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/buffer.h"
#include "strata/hal/command_buffer.h"
#include "strata/hal/semaphore.h"
#include "strata/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct strata_hal_device_t strata_hal_device_t;

const strata_vm_ref_type_t* strata_hal_device_type(void);

typedef struct strata_hal_device_options_t {
  const char* name;       /* "local-sync" or "local-task" */
  uint32_t worker_count;  /* local-task: 0 means one per core */
} strata_hal_device_options_t;

/* Creates a device; an unknown name is INVALID_ARGUMENT listing the known
 * ones. The caller owns the reference. */
strata_status_t strata_hal_device_create(
    const strata_hal_device_options_t* options, strata_allocator_t allocator,
    strata_hal_device_t** out_device);

const char* strata_hal_device_name(const strata_hal_device_t* device);
/* Workers that run workgroups (1 for local-sync). */
uint32_t strata_hal_device_worker_count(const strata_hal_device_t* device);
strata_allocator_t strata_hal_device_allocator(const strata_hal_device_t* device);

/* Allocates a device buffer now (host memory, zeroed) and signals
 * signal_fence once wait_fence is reached. */
strata_status_t strata_hal_device_queue_alloca(
    strata_hal_device_t* device, strata_hal_fence_t* wait_fence,
    strata_hal_fence_t* signal_fence, uint64_t length,
    strata_hal_buffer_t** out_buffer);
/* Releases the queue's use of buffer once wait_fence is reached. */
strata_status_t strata_hal_device_queue_dealloca(
    strata_hal_device_t* device, strata_hal_fence_t* wait_fence,
    strata_hal_fence_t* signal_fence, strata_hal_buffer_t* buffer);
/* Runs the finalized command buffers in order once wait_fence is reached,
 * then signals signal_fence. Command buffers and fences are retained until
 * the work is done. On local-task the queue lets go of the command buffers
 * (and so of the buffers they bind) shortly after signal_fence: at the
 * device's next queue operation, on the thread that makes it, or when a
 * worker runs out of work, whichever comes first; so do its fences. */
strata_status_t strata_hal_device_queue_execute(
    strata_hal_device_t* device, strata_hal_fence_t* wait_fence,
    strata_hal_fence_t* signal_fence,
    strata_hal_command_buffer_t* const* command_buffers, size_t count);
/* Signals signal_fence once wait_fence is reached. */
strata_status_t strata_hal_device_queue_barrier(strata_hal_device_t* device,
                                                strata_hal_fence_t* wait_fence,
                                                strata_hal_fence_t* signal_fence);

/* Marks the device lost, for good: reason (copied) says why. Dispatches
 * in flight stop being handed out (their workgroups not yet started are
 * skipped) and fail their submissions, submissions not yet started fail,
 * and every later queue operation fails at once with UNAVAILABLE
 * "device 'local-task' is lost: <reason>". A kernel that never returns
 * keeps its worker: releasing the last reference to a lost device whose
 * work has not drained within 100 ms leaks the device (its threads keep
 * running until the process exits) rather than block forever. The first
 * reason stays; later calls do nothing. Thread-safe. */
void strata_hal_device_lose(strata_hal_device_t* device, const char* reason);
/* NULL while the device works; once it is lost, the UNAVAILABLE status
 * every queue operation fails with (owned by the caller). Thread-safe. */
strata_status_t strata_hal_device_lost_status(const strata_hal_device_t* device);

strata_hal_device_t* strata_hal_device_from_ref(strata_vm_ref_object_t* ref);
static inline strata_vm_ref_object_t* strata_hal_device_as_ref(
    strata_hal_device_t* device) {
  return (strata_vm_ref_object_t*)device;
}
static inline void strata_hal_device_retain(strata_hal_device_t* device) {
  strata_vm_ref_retain((strata_vm_ref_object_t*)device);
}
static inline void strata_hal_device_release(strata_hal_device_t* device) {
  strata_vm_ref_release((strata_vm_ref_object_t*)device);
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* STRATA_HAL_DEVICE_H_ */
