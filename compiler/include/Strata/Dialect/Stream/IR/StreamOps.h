// StreamOps.h - the stream dialect (StreamOps.td).

#ifndef STRATA_DIALECT_STREAM_IR_STREAMOPS_H
#define STRATA_DIALECT_STREAM_IR_STREAMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Strata/Dialect/HAL/IR/HALOps.h"

#include "Strata/Dialect/Stream/IR/StreamDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Strata/Dialect/Stream/IR/StreamTypes.h.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/Stream/IR/StreamOps.h.inc"

#endif // STRATA_DIALECT_STREAM_IR_STREAMOPS_H
