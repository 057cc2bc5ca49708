// FlowOps.h - the flow dialect (FlowOps.td).

#ifndef STRATA_DIALECT_FLOW_IR_FLOWOPS_H
#define STRATA_DIALECT_FLOW_IR_FLOWOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "Strata/Dialect/Flow/IR/FlowDialect.h.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/Flow/IR/FlowOps.h.inc"

#endif // STRATA_DIALECT_FLOW_IR_FLOWOPS_H
