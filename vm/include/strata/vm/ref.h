/* ref.h - intrusively reference-counted objects held in VM ref registers.
 *
 * Every ref object starts with strata_vm_ref_object_t. Its type points at a
 * static strata_vm_ref_type_t that names the type and destroys the object when
 * the count reaches zero. Retain/release are atomic: an object may be shared
 * between threads; the object itself states what else is thread-safe.
 *
 * A ref register holds a strata_vm_ref_object_t* (NULL = null ref).
 *
 * C99 and C++.
 */
#ifndef STRATA_VM_REF_H_
#define STRATA_VM_REF_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strata_vm_ref_object_t;

typedef struct strata_vm_ref_type_t {
  /* Type name as modules spell it, e.g. "vm.buffer". Static storage. */
  const char* name;
  /* Frees the object. Called once, when the last reference is released. */
  void (*destroy)(struct strata_vm_ref_object_t* object);
} strata_vm_ref_type_t;

typedef struct strata_vm_ref_object_t {
  uint32_t counter; /* atomic; starts at 1 for the creator */
  uint32_t reserved;
  const strata_vm_ref_type_t* type;
} strata_vm_ref_object_t;

/* Initializes the header of a new object with a count of 1. */
static inline void strata_vm_ref_object_init(strata_vm_ref_object_t* object,
                                             const strata_vm_ref_type_t* type) {
  object->counter = 1;
  object->reserved = 0;
  object->type = type;
}

/* Adds a reference. NULL is fine. */
static inline void strata_vm_ref_retain(strata_vm_ref_object_t* object) {
  if (object) {
    __atomic_fetch_add(&object->counter, 1, __ATOMIC_RELAXED);
  }
}

/* Drops a reference and destroys the object at zero. NULL is fine. */
static inline void strata_vm_ref_release(strata_vm_ref_object_t* object) {
  if (object &&
      __atomic_fetch_sub(&object->counter, 1, __ATOMIC_ACQ_REL) == 1) {
    object->type->destroy(object);
  }
}

/* Current count; for tests and debugging only. */
static inline uint32_t strata_vm_ref_count(const strata_vm_ref_object_t* object) {
  return object ? __atomic_load_n(&object->counter, __ATOMIC_ACQUIRE) : 0;
}

/* Whether object is non-NULL and of exactly this type. */
static inline int strata_vm_ref_isa(const strata_vm_ref_object_t* object,
                                    const strata_vm_ref_type_t* type) {
  return object && object->type == type;
}

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_VM_REF_H_ */
