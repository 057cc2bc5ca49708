/* buffer.h - host memory buffers and buffer views (shape + element type).
 *
 * hal.buffer and hal.buffer_view are VM ref objects (strata_vm_ref_object_t
 * first), so bytecode can hold them in ref registers and lists. Buffers are
 * 64-byte aligned host memory; every range a caller passes is checked, with
 * overflow-safe arithmetic, and errors name the buffer length and the range.
 * Buffer contents are not synchronized: the queue orders work on them.
 *
 * C11 and C++.
 */
#ifndef STRATA_HAL_BUFFER_H_
#define STRATA_HAL_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/schemas/element_types.h"
#include "strata/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types (strata_hal_element_type_t, STRATA_HAL_ELEMENT_TYPE_*): the
 * codes compiled programs pass to hal.buffer_view.create/assert, defined in
 * schemas/ (strata/schemas/element_types.h) for the compiler and the
 * runtime alike. */

/* Bytes per element (bit width rounded up to bytes); 0 for NONE. */
static inline size_t strata_hal_element_byte_size(strata_hal_element_type_t t) {
  return ((t & 0xFFu) + 7u) / 8u;
}
/* Name as strata-run writes it: "f32", "i8", "si32", "ui16", "i1"... NULL for
 * an unknown type. */
const char* strata_hal_element_type_name(strata_hal_element_type_t type);
/* Parses such a name; 0 (NONE) when unknown. */
strata_hal_element_type_t strata_hal_element_type_parse(const char* name,
                                                        size_t length);

/*===------------------------------------------------------------------===*
 * Buffers
 *===------------------------------------------------------------------===*/

typedef struct strata_hal_buffer_t strata_hal_buffer_t;

const strata_vm_ref_type_t* strata_hal_buffer_type(void);

/* Allocates length bytes of zeroed, 64-byte aligned host memory. The record
 * comes from allocator; the bytes too, except for large buffers (at least
 * STRATA_HAL_LARGE_BUFFER_BYTES), which are fresh anonymous pages mapped
 * from the OS (zero already, faulted in by whoever first writes them, in
 * transparent huge pages where the system allows) and unmapped when the
 * buffer is destroyed. */
#define STRATA_HAL_LARGE_BUFFER_BYTES (2u * 1024u * 1024u)

/* Like strata_hal_buffer_allocate, for memory whose every byte the caller
 * writes before anything reads it (dispatch results): the contents are
 * unspecified. Buffers of at least STRATA_HAL_REUSED_BUFFER_BYTES are
 * mapped pages too (whole 4 KiB pages below STRATA_HAL_LARGE_BUFFER_BYTES)
 * and reuse the mappings of destroyed ones: the smallest kept mapping that
 * is large enough (a process-wide cache of at most
 * STRATA_HAL_MAPPING_CACHE_BYTES, oldest mappings unmapped first), so
 * repeated calls touch warm pages instead of faulting fresh ones in, even
 * when their sizes change from call to call; small ones skip the zeroing. */
#define STRATA_HAL_REUSED_BUFFER_BYTES (64u * 1024u)
#define STRATA_HAL_MAPPING_CACHE_BYTES (256u * 1024u * 1024u)
strata_status_t strata_hal_buffer_allocate_uninitialized(
    strata_allocator_t allocator, uint64_t length,
    strata_hal_buffer_t** out_buffer);
strata_status_t strata_hal_buffer_allocate(strata_allocator_t allocator,
                                           uint64_t length,
                                           strata_hal_buffer_t** out_buffer);
/* Wraps caller memory without copying; owner (may be NULL) is retained until
 * the buffer dies and must keep data alive. */
strata_status_t strata_hal_buffer_wrap(void* data, uint64_t length,
                                       strata_vm_ref_object_t* owner,
                                       strata_allocator_t allocator,
                                       strata_hal_buffer_t** out_buffer);
/* Like strata_hal_buffer_wrap, for memory nothing may write (a module's
 * rodata used in place): stores, fills and copies into it, or into a subspan
 * of it, fail with PERMISSION_DENIED. */
strata_status_t strata_hal_buffer_wrap_read_only(
    const void* data, uint64_t length, strata_vm_ref_object_t* owner,
    strata_allocator_t allocator, strata_hal_buffer_t** out_buffer);
/* Whether buffer (or the buffer it is a subspan of) was wrapped read-only. */
int strata_hal_buffer_is_read_only(const strata_hal_buffer_t* buffer);
/* A view of [offset, offset + length) of buffer sharing its memory (the
 * parent is retained). Range checked. */
strata_status_t strata_hal_buffer_subspan(strata_hal_buffer_t* buffer,
                                          uint64_t offset, uint64_t length,
                                          strata_allocator_t allocator,
                                          strata_hal_buffer_t** out_buffer);

uint64_t strata_hal_buffer_length(const strata_hal_buffer_t* buffer);
/* Checks [offset, offset + length) and returns a pointer to it. */
strata_status_t strata_hal_buffer_map(const strata_hal_buffer_t* buffer,
                                      uint64_t offset, uint64_t length,
                                      uint8_t** out_ptr);

/* NULL unless ref is a hal.buffer. */
strata_hal_buffer_t* strata_hal_buffer_from_ref(strata_vm_ref_object_t* ref);
static inline strata_vm_ref_object_t* strata_hal_buffer_as_ref(
    strata_hal_buffer_t* buffer) {
  return (strata_vm_ref_object_t*)buffer;
}
static inline void strata_hal_buffer_retain(strata_hal_buffer_t* buffer) {
  strata_vm_ref_retain((strata_vm_ref_object_t*)buffer);
}
static inline void strata_hal_buffer_release(strata_hal_buffer_t* buffer) {
  strata_vm_ref_release((strata_vm_ref_object_t*)buffer);
}

/*===------------------------------------------------------------------===*
 * Buffer views
 *===------------------------------------------------------------------===*/

#define STRATA_HAL_MAX_RANK 16

typedef struct strata_hal_buffer_view_t strata_hal_buffer_view_t;

const strata_vm_ref_type_t* strata_hal_buffer_view_type(void);

/* Creates a view of buffer (retained) with a shape and element type. The
 * buffer must hold at least the product of the dims times the element size;
 * the error names both sizes. */
strata_status_t strata_hal_buffer_view_create(
    strata_hal_buffer_t* buffer, const int64_t* shape, size_t rank,
    strata_hal_element_type_t element_type, strata_allocator_t allocator,
    strata_hal_buffer_view_t** out_view);

strata_hal_buffer_t* strata_hal_buffer_view_buffer(
    const strata_hal_buffer_view_t* view); /* borrowed */
size_t strata_hal_buffer_view_rank(const strata_hal_buffer_view_t* view);
/* Dim i; 0 when i >= rank. */
int64_t strata_hal_buffer_view_dim(const strata_hal_buffer_view_t* view,
                                   size_t i);
const int64_t* strata_hal_buffer_view_shape(
    const strata_hal_buffer_view_t* view);
strata_hal_element_type_t strata_hal_buffer_view_element_type(
    const strata_hal_buffer_view_t* view);
/* Element count times element size. */
uint64_t strata_hal_buffer_view_byte_length(const strata_hal_buffer_view_t* view);

/* NULL unless ref is a hal.buffer_view. */
strata_hal_buffer_view_t* strata_hal_buffer_view_from_ref(
    strata_vm_ref_object_t* ref);
static inline strata_vm_ref_object_t* strata_hal_buffer_view_as_ref(
    strata_hal_buffer_view_t* view) {
  return (strata_vm_ref_object_t*)view;
}
static inline void strata_hal_buffer_view_release(
    strata_hal_buffer_view_t* view) {
  strata_vm_ref_release((strata_vm_ref_object_t*)view);
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* STRATA_HAL_BUFFER_H_ */
