/* value.h - values crossing the VM boundary: untyped 8-byte slots and typed
 * variants.
 *
 * C99 and C++.
 */
#ifndef STRATA_VM_VALUE_H_
#define STRATA_VM_VALUE_H_

#include <stdint.h>

#include "strata/vm/ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One argument or result of a call; its type comes from the calling
 * convention. Refs in arguments are borrowed; refs in results are owned by
 * whoever receives them. */
typedef union strata_vm_value_t {
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
  strata_vm_ref_object_t* ref;
  uint64_t bits;
} strata_vm_value_t;

typedef enum strata_vm_value_type_e {
  STRATA_VM_VALUE_NONE = 0,
  STRATA_VM_VALUE_I32 = 1,
  STRATA_VM_VALUE_I64 = 2,
  STRATA_VM_VALUE_F32 = 3,
  STRATA_VM_VALUE_F64 = 4,
  STRATA_VM_VALUE_REF = 5,
  /* Widens the enum so a corrupt value is representable and rejectable. */
  STRATA_VM_VALUE_MAX_ENUM = 0x7FFFFFFF,
} strata_vm_value_type_t;

/* A value that knows its type: the element of a vm.list. */
typedef struct strata_vm_variant_t {
  strata_vm_value_type_t type;
  strata_vm_value_t value;
} strata_vm_variant_t;

static inline strata_vm_variant_t strata_vm_variant_i32(int32_t v) {
  strata_vm_variant_t out;
  out.type = STRATA_VM_VALUE_I32;
  out.value.bits = 0;
  out.value.i32 = v;
  return out;
}
static inline strata_vm_variant_t strata_vm_variant_i64(int64_t v) {
  strata_vm_variant_t out;
  out.type = STRATA_VM_VALUE_I64;
  out.value.i64 = v;
  return out;
}
static inline strata_vm_variant_t strata_vm_variant_f32(float v) {
  strata_vm_variant_t out;
  out.type = STRATA_VM_VALUE_F32;
  out.value.bits = 0;
  out.value.f32 = v;
  return out;
}
static inline strata_vm_variant_t strata_vm_variant_f64(double v) {
  strata_vm_variant_t out;
  out.type = STRATA_VM_VALUE_F64;
  out.value.f64 = v;
  return out;
}
/* The variant borrows ref; whoever stores it retains. */
static inline strata_vm_variant_t strata_vm_variant_ref(
    strata_vm_ref_object_t* ref) {
  strata_vm_variant_t out;
  out.type = STRATA_VM_VALUE_REF;
  out.value.ref = ref;
  return out;
}

/* Calling convention character of a value type: i I f F r; '?' for none. */
char strata_vm_value_type_cconv_char(strata_vm_value_type_t type);
/* Readable name: "i32", "i64", "f32", "f64", "ref", "none". */
const char* strata_vm_value_type_name(strata_vm_value_type_t type);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_VM_VALUE_H_ */
