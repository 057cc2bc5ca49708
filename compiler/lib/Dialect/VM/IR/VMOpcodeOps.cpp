// VMOpcodeOps.cpp - the ops generated from schemas/opcodes.def and their folders.

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::strata::vm;

#define GET_OP_CLASSES
#include "Strata/Dialect/VM/IR/VMOpcodeOps.cpp.inc"

OpFoldResult ConstI32Op::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstI64Op::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstF32Op::fold(FoldAdaptor) { return getValueAttr(); }
OpFoldResult ConstF64Op::fold(FoldAdaptor) { return getValueAttr(); }
