// CheckOps.cpp - the check dialect's registration and verifiers.

#include "Strata/Dialect/Check/IR/CheckOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::strata::check;

#include "Strata/Dialect/Check/IR/CheckDialect.cpp.inc"

void CheckDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Strata/Dialect/Check/IR/CheckOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "Strata/Dialect/Check/IR/CheckOps.cpp.inc"

namespace {

/// The constant of a `_const` check must have the operand's type.
LogicalResult verifyConstant(Operation *op, Type operandType,
                             ElementsAttr value) {
  if (value.getType() != operandType) {
    return op->emitOpError("constant of type ")
           << value.getType() << " does not match the operand type "
           << operandType;
  }
  return success();
}

/// Tolerances are magnitudes.
LogicalResult verifyTolerances(Operation *op, std::optional<APFloat> atol,
                               std::optional<APFloat> rtol) {
  for (auto [name, value] :
       {std::make_pair("atol", atol), std::make_pair("rtol", rtol)}) {
    if (value && (value->isNegative() || value->isNaN())) {
      return op->emitOpError(name) << " must be a non-negative number";
    }
  }
  return success();
}

} // namespace

LogicalResult ExpectEqConstOp::verify() {
  return verifyConstant(*this, getLhs().getType(), getValue());
}

LogicalResult ExpectAlmostEqOp::verify() {
  return verifyTolerances(*this, getAtol(), getRtol());
}

LogicalResult ExpectAlmostEqConstOp::verify() {
  if (failed(verifyConstant(*this, getLhs().getType(), getValue()))) {
    return failure();
  }
  return verifyTolerances(*this, getAtol(), getRtol());
}
