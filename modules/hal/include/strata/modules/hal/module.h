/* module.h - the "hal" VM module: the imports compiled programs call
 * (hal.device.queue.execute, hal.fence.await, ...). The full list with each
 * calling convention and contract is one table, schemas/hal_imports.def,
 * which the compiler declares its imports from too. This is the VM's binding
 * of the HAL (hal/ itself knows nothing of the VM beyond strata/vm/ref.h):
 * the ref type registration, the module, and the VM wait on a fence.
 *
 * Ownership: the module retains the devices it is given; a wait made by
 * strata_hal_fence_make_vm_wait borrows its fence.
 *
 * C11 and C++.
 */
#ifndef STRATA_MODULES_HAL_MODULE_H_
#define STRATA_MODULES_HAL_MODULE_H_

#include <stddef.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/device.h"
#include "strata/hal/semaphore.h"
#include "strata/vm/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the hal module's import surface; modules may depend on it.
 * The highest `since` of schemas/hal_imports.def (checked when the hal
 * module is built). 2: hal.allocator.allocate_uninitialized and
 * hal.buffer.wrap. 3: hal.executable.create_first. */
#define STRATA_HAL_MODULE_VERSION 3u

/* Registers every HAL ref type (hal.buffer, hal.buffer_view, hal.device,
 * hal.allocator, hal.executable, hal.command_buffer, hal.semaphore,
 * hal.fence) with instance. Idempotent. */
strata_status_t strata_hal_register_types(strata_vm_instance_t* instance);

/* Creates the hal module over devices (each retained; hal.devices.get(i)
 * returns devices[i]). Registers the HAL types with instance. */
strata_status_t strata_hal_module_create(strata_vm_instance_t* instance,
                                         strata_hal_device_t* const* devices,
                                         size_t device_count,
                                         strata_allocator_t allocator,
                                         strata_vm_module_t** out_module);

/* Options of the hal module. Zero-initialized means the defaults. */
typedef struct strata_hal_module_options_t {
  /* Non-zero: hal.executable.create refuses every native kernel library
   * ("embedded-elf-*", "static") with PERMISSION_DENIED naming the format
   * and this policy; only "portable-bytecode-v1" (verified kernel bytecode
   * run by the runtime's interpreter) loads. */
  int no_native_kernels;
} strata_hal_module_options_t;

/* strata_hal_module_create with options (NULL: the defaults). */
strata_status_t strata_hal_module_create_with_options(
    strata_vm_instance_t* instance, strata_hal_device_t* const* devices,
    size_t device_count, const strata_hal_module_options_t* options,
    strata_allocator_t allocator, strata_vm_module_t** out_module);

/* A strata_vm_wait_t for a native function that defers until fence is
 * resolved (reached or failed), giving up at deadline_ns (absolute
 * CLOCK_MONOTONIC; 0 and STRATA_HAL_INFINITE_FUTURE mean never): wait blocks
 * with strata_hal_fence_wait; subscribe/unsubscribe use
 * strata_hal_fence_subscribe_notify and strata_hal_fence_unsubscribe, with
 * the fence's allocator. user is fence, borrowed: the deferring call's
 * caller keeps it alive (in the invocation's registers) while the
 * invocation is suspended. A failure is not reported through the wait: the
 * deferred call runs again and finds it with strata_hal_fence_query. */
strata_vm_wait_t strata_hal_fence_make_vm_wait(strata_hal_fence_t* fence,
                                               int64_t deadline_ns);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STRATA_MODULES_HAL_MODULE_H_ */
