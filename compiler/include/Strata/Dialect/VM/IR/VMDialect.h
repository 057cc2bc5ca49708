// VMDialect.h - the vm dialect and its reference types.

#ifndef STRATA_DIALECT_VM_IR_VMDIALECT_H
#define STRATA_DIALECT_VM_IR_VMDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "Strata/Dialect/VM/IR/VMDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Strata/Dialect/VM/IR/VMTypes.h.inc"

namespace mlir::strata::vm {

/// True for the types a ref register holds: !vm.ref<T>, !vm.buffer, !vm.list.
bool isRefType(Type type);

/// True for the types a primitive register holds: i32, i64, f32, f64.
bool isPrimType(Type type);

} // namespace mlir::strata::vm

#endif // STRATA_DIALECT_VM_IR_VMDIALECT_H
