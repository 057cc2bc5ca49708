/* command_buffer.h - recorded device work: dispatches, fills, copies and
 * barriers, submitted to a device queue.
 *
 * Recording allocates; executing does not. A command buffer is recorded by
 * one thread at a time, finalized once, then submitted (ONE_SHOT: once;
 * REUSABLE: any number of times). Commands between two barriers (a batch)
 * are independent by contract and may run in any order or at the same time
 * (local-task runs them concurrently; local-sync one after the other); a
 * barrier starts the commands after it only once every command before it
 * has finished. Record a barrier between any two commands where the later
 * one reads or writes what the earlier one writes (or writes what it
 * reads). The command buffers of one submission run one after the other.
 * Ranges, binding counts and export ordinals are checked at record time; the
 * kernel's binding and constant counts are checked against its attrs.
 *
 * hal.command_buffer is a VM ref object. C11 and C++.
 */
#ifndef STRATA_HAL_COMMAND_BUFFER_H_
#define STRATA_HAL_COMMAND_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/buffer.h"
#include "strata/hal/executable.h"
#include "strata/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct strata_hal_command_buffer_t strata_hal_command_buffer_t;

const strata_vm_ref_type_t* strata_hal_command_buffer_type(void);

typedef enum strata_hal_command_buffer_mode_e {
  STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT = 1,
  STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE = 2,
  /* Widens the enum so any 32-bit value a caller passes is representable
   * and can be rejected with a message instead of being undefined. */
  STRATA_HAL_COMMAND_BUFFER_MODE_MAX_ENUM = 0x7FFFFFFF,
} strata_hal_command_buffer_mode_t;

/* A range of a buffer bound to a dispatch; length UINT64_MAX means "to the
 * end of the buffer". */
typedef struct strata_hal_buffer_binding_t {
  strata_hal_buffer_t* buffer;  /* borrowed; retained by the command buffer */
  uint64_t offset;
  uint64_t length;
} strata_hal_buffer_binding_t;

strata_status_t strata_hal_command_buffer_create(
    strata_hal_command_buffer_mode_t mode, strata_allocator_t allocator,
    strata_hal_command_buffer_t** out_command_buffer);

/* Records export `ordinal` of executable over a grid of workgroups. */
strata_status_t strata_hal_command_buffer_dispatch(
    strata_hal_command_buffer_t* command_buffer,
    strata_hal_executable_t* executable, uint32_t ordinal,
    const uint32_t workgroup_count[3], const uint32_t* constants,
    size_t constant_count, const strata_hal_buffer_binding_t* bindings,
    size_t binding_count);
/* Fills [offset, offset + length) with a 1-, 2- or 4-byte pattern; offset
 * and length must be multiples of the pattern size. */
strata_status_t strata_hal_command_buffer_fill(
    strata_hal_command_buffer_t* command_buffer, strata_hal_buffer_t* target,
    uint64_t offset, uint64_t length, uint32_t pattern, size_t pattern_size);
strata_status_t strata_hal_command_buffer_copy(
    strata_hal_command_buffer_t* command_buffer, strata_hal_buffer_t* source,
    uint64_t source_offset, strata_hal_buffer_t* target,
    uint64_t target_offset, uint64_t length);
/* An execution barrier: commands recorded after it start only once every
 * command recorded before it has finished, and see its writes. */
strata_status_t strata_hal_command_buffer_barrier(
    strata_hal_command_buffer_t* command_buffer);
/* Ends recording; later record calls fail with FAILED_PRECONDITION. */
strata_status_t strata_hal_command_buffer_finalize(
    strata_hal_command_buffer_t* command_buffer);

size_t strata_hal_command_buffer_command_count(
    const strata_hal_command_buffer_t* command_buffer);

strata_hal_command_buffer_t* strata_hal_command_buffer_from_ref(
    strata_vm_ref_object_t* ref);
static inline strata_vm_ref_object_t* strata_hal_command_buffer_as_ref(
    strata_hal_command_buffer_t* command_buffer) {
  return (strata_vm_ref_object_t*)command_buffer;
}
static inline void strata_hal_command_buffer_release(
    strata_hal_command_buffer_t* command_buffer) {
  strata_vm_ref_release((strata_vm_ref_object_t*)command_buffer);
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* STRATA_HAL_COMMAND_BUFFER_H_ */
