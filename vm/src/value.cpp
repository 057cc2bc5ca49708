// value.cpp - names and calling-convention characters of VM value types.
#include "strata/vm/value.h"

extern "C" {

char strata_vm_value_type_cconv_char(strata_vm_value_type_t type) {
  switch (type) {
    case STRATA_VM_VALUE_I32:
      return 'i';
    case STRATA_VM_VALUE_I64:
      return 'I';
    case STRATA_VM_VALUE_F32:
      return 'f';
    case STRATA_VM_VALUE_F64:
      return 'F';
    case STRATA_VM_VALUE_REF:
      return 'r';
    case STRATA_VM_VALUE_NONE:
    case STRATA_VM_VALUE_MAX_ENUM:
      break;
  }
  return '?';
}

const char* strata_vm_value_type_name(strata_vm_value_type_t type) {
  switch (type) {
    case STRATA_VM_VALUE_I32:
      return "i32";
    case STRATA_VM_VALUE_I64:
      return "i64";
    case STRATA_VM_VALUE_F32:
      return "f32";
    case STRATA_VM_VALUE_F64:
      return "f64";
    case STRATA_VM_VALUE_REF:
      return "ref";
    case STRATA_VM_VALUE_NONE:
    case STRATA_VM_VALUE_MAX_ENUM:
      break;
  }
  return "none";
}

}  // extern "C"
