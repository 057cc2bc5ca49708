// CheckOps.h - the check dialect (CheckOps.td).

#ifndef STRATA_DIALECT_CHECK_IR_CHECKOPS_H
#define STRATA_DIALECT_CHECK_IR_CHECKOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "Strata/Dialect/Check/IR/CheckDialect.h.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/Check/IR/CheckOps.h.inc"

#endif // STRATA_DIALECT_CHECK_IR_CHECKOPS_H
