/* list.h - vm.list: a growable list of variants held by reference.
 *
 * Elements are i32, i64, f32, f64 or refs (retained by the list), or empty.
 * Lists are not synchronized: concurrent writers must coordinate.
 *
 * C99 and C++.
 */
#ifndef STRATA_VM_LIST_H_
#define STRATA_VM_LIST_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/vm/ref.h"
#include "strata/vm/value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct strata_vm_list_t strata_vm_list_t;

const strata_vm_ref_type_t* strata_vm_list_type(void);

/* Creates an empty list with room for capacity elements. */
strata_status_t strata_vm_list_create(size_t capacity,
                                      strata_allocator_t allocator,
                                      strata_vm_list_t** out_list);

size_t strata_vm_list_size(const strata_vm_list_t* list);
size_t strata_vm_list_capacity(const strata_vm_list_t* list);
strata_status_t strata_vm_list_reserve(strata_vm_list_t* list, size_t capacity);
/* Grows with empty elements or shrinks, releasing dropped refs. */
strata_status_t strata_vm_list_resize(strata_vm_list_t* list, size_t size);
/* Releases every element and sets the size to 0. */
void strata_vm_list_clear(strata_vm_list_t* list);

/* Reads element i. A ref in *out is borrowed: valid while the list holds it. */
strata_status_t strata_vm_list_get(const strata_vm_list_t* list, size_t i,
                                   strata_vm_variant_t* out);
/* Writes element i, retaining a ref value and releasing the old element. */
strata_status_t strata_vm_list_set(strata_vm_list_t* list, size_t i,
                                   strata_vm_variant_t value);
/* Appends, retaining a ref value. */
strata_status_t strata_vm_list_push(strata_vm_list_t* list,
                                    strata_vm_variant_t value);
/* Writes element i taking over the caller's reference (no retain). On
 * failure the reference stays with the caller. */
strata_status_t strata_vm_list_set_move(strata_vm_list_t* list, size_t i,
                                        strata_vm_variant_t value);

/* Unchecked fast access for the interpreter; i < size is the caller's duty. */
strata_vm_variant_t* strata_vm_list_data(strata_vm_list_t* list);

static inline strata_vm_ref_object_t* strata_vm_list_as_ref(
    strata_vm_list_t* list) {
  return (strata_vm_ref_object_t*)list;
}
/* NULL unless ref is a vm.list. */
strata_vm_list_t* strata_vm_list_from_ref(strata_vm_ref_object_t* ref);

static inline void strata_vm_list_retain(strata_vm_list_t* list) {
  strata_vm_ref_retain((strata_vm_ref_object_t*)list);
}
static inline void strata_vm_list_release(strata_vm_list_t* list) {
  strata_vm_ref_release((strata_vm_ref_object_t*)list);
}

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_VM_LIST_H_ */
