// UtilOps.h - the util dialect (UtilOps.td).

#ifndef STRATA_DIALECT_UTIL_IR_UTILOPS_H
#define STRATA_DIALECT_UTIL_IR_UTILOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Strata/Dialect/Util/IR/UtilDialect.h.inc"

namespace mlir::strata::util {
/// The private function that stores the initial values of mutable tensor
/// globals (made by the input phase); the module's initializer calls it.
inline constexpr char kGlobalInitializerName[] =
    "__strata_initialize_tensor_globals";
} // namespace mlir::strata::util

#define GET_TYPEDEF_CLASSES
#include "Strata/Dialect/Util/IR/UtilTypes.h.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/Util/IR/UtilOps.h.inc"

#endif // STRATA_DIALECT_UTIL_IR_UTILOPS_H
