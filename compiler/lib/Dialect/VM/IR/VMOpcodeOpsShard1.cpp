// VMOpcodeOpsShard1.cpp - shard 1 of the op definitions generated from opcodes.def.

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::strata::vm;

#define GET_OP_DEFS_1
#include "Strata/Dialect/VM/IR/VMOpcodeOps.cpp.inc"
