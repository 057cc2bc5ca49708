/* buffer.h - vm.buffer: a byte array held by reference.
 *
 * A buffer either owns its bytes or views memory kept alive by another ref
 * object (for example module rodata, which is zero-copy and read-only).
 * Buffers are not synchronized: concurrent writers must coordinate.
 *
 * C99 and C++.
 */
#ifndef STRATA_VM_BUFFER_H_
#define STRATA_VM_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct strata_vm_buffer_t strata_vm_buffer_t;

/* The registered type of every vm.buffer. */
const strata_vm_ref_type_t* strata_vm_buffer_type(void);

/* Creates a mutable, zero-filled buffer of length bytes aligned to alignment
 * (a power of two; 0 means 16). The caller owns the returned reference. */
strata_status_t strata_vm_buffer_create(size_t length, size_t alignment,
                                        strata_allocator_t allocator,
                                        strata_vm_buffer_t** out_buffer);

/* Creates a buffer viewing [data, data + length) without copying. owner (may
 * be NULL) is retained until the buffer dies and must keep data alive.
 * writable = 0 makes stores and fills fail. */
strata_status_t strata_vm_buffer_wrap(void* data, size_t length, int writable,
                                      strata_vm_ref_object_t* owner,
                                      strata_allocator_t allocator,
                                      strata_vm_buffer_t** out_buffer);

/* Creates a new mutable buffer holding a copy of [offset, offset + length) of
 * source. Range checked. */
strata_status_t strata_vm_buffer_clone(const strata_vm_buffer_t* source,
                                       uint64_t offset, uint64_t length,
                                       strata_allocator_t allocator,
                                       strata_vm_buffer_t** out_buffer);

uint8_t* strata_vm_buffer_data(const strata_vm_buffer_t* buffer);
size_t strata_vm_buffer_length(const strata_vm_buffer_t* buffer);
int strata_vm_buffer_is_writable(const strata_vm_buffer_t* buffer);

/* Checks that [offset, offset + length) lies inside the buffer, without
 * overflow, and returns a pointer to it. writable = 1 also requires a
 * writable buffer. Errors name the buffer length and the range. */
strata_status_t strata_vm_buffer_map(const strata_vm_buffer_t* buffer,
                                     uint64_t offset, uint64_t length,
                                     int writable, uint8_t** out_ptr);

static inline strata_vm_ref_object_t* strata_vm_buffer_as_ref(
    strata_vm_buffer_t* buffer) {
  return (strata_vm_ref_object_t*)buffer;
}
/* NULL unless ref is a vm.buffer. */
strata_vm_buffer_t* strata_vm_buffer_from_ref(strata_vm_ref_object_t* ref);

static inline void strata_vm_buffer_retain(strata_vm_buffer_t* buffer) {
  strata_vm_ref_retain((strata_vm_ref_object_t*)buffer);
}
static inline void strata_vm_buffer_release(strata_vm_buffer_t* buffer) {
  strata_vm_ref_release((strata_vm_ref_object_t*)buffer);
}

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_VM_BUFFER_H_ */
