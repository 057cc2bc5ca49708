// UtilOps.cpp - the util dialect's registration and verifiers.

#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::strata::util;

#include "Strata/Dialect/Util/IR/UtilDialect.cpp.inc"

void UtilDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Strata/Dialect/Util/IR/UtilOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "Strata/Dialect/Util/IR/UtilOps.cpp.inc"

LogicalResult UnfoldableConstantOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  auto *props = properties.as<Properties *>();
  TypedAttr value = props ? props->getValue() : TypedAttr();
  if (!value) {
    value = dyn_cast_or_null<TypedAttr>(attributes.get("value"));
  }
  if (!value) {
    return failure();
  }
  inferred.push_back(value.getType());
  return success();
}

LogicalResult UnfoldableConstantOp::verify() {
  if (getValue().getType() != getType()) {
    return emitOpError("value of type ")
           << getValue().getType() << " does not match the result type "
           << getType();
  }
  return success();
}

LogicalResult OptimizationBarrierOp::canonicalize(OptimizationBarrierOp op,
                                                  PatternRewriter &rewriter) {
  if (!op->use_empty()) {
    return failure();
  }
  rewriter.eraseOp(op);
  return success();
}
