// HALOps.h - the hal dialect (HALOps.td).

#ifndef STRATA_DIALECT_HAL_IR_HALOPS_H
#define STRATA_DIALECT_HAL_IR_HALOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "Strata/Dialect/HAL/IR/HALDialect.h.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/HAL/IR/HALOps.h.inc"

#endif // STRATA_DIALECT_HAL_IR_HALOPS_H
