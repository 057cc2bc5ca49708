// FlowOps.cpp - the flow dialect's registration, builders and verifiers.

#include "Strata/Dialect/Flow/IR/FlowOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::strata::flow;

#include "Strata/Dialect/Flow/IR/FlowDialect.cpp.inc"

void FlowDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Strata/Dialect/Flow/IR/FlowOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "Strata/Dialect/Flow/IR/FlowOps.cpp.inc"

void ExecutableOp::build(OpBuilder &builder, OperationState &state,
                         StringRef name) {
  state.getOrAddProperties<Properties>().sym_name = builder.getStringAttr(name);
  Region *body = state.addRegion();
  body->push_back(new Block());
  // The region has no parent op yet: the builder takes the context.
  OpBuilder inner(builder.getContext());
  inner.setInsertionPointToStart(&body->front());
  ModuleOp::create(inner, state.location);
}

ModuleOp ExecutableOp::getInnerModule() {
  return dyn_cast_or_null<ModuleOp>(
      getBody().front().empty() ? nullptr : &getBody().front().front());
}

LogicalResult ExecutableOp::verify() {
  Block &body = getBody().front();
  if (!llvm::hasSingleElement(body) || !isa<ModuleOp>(body.front())) {
    return emitOpError("must hold exactly one builtin.module of dispatch "
                       "functions");
  }
  return success();
}

LogicalResult DispatchOp::verify() {
  if (getEntryPoint().getNestedReferences().size() != 1) {
    return emitOpError("entry point ")
           << getEntryPoint() << " must be @executable::@function";
  }
  return success();
}
