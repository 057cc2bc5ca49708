// StreamOps.cpp - the stream dialect's registration, syntax and verifiers.

#include "Strata/Dialect/Stream/IR/StreamOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::strata::stream;

#include "Strata/Dialect/Stream/IR/StreamDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Strata/Dialect/Stream/IR/StreamTypes.cpp.inc"

void StreamDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Strata/Dialect/Stream/IR/StreamTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Strata/Dialect/Stream/IR/StreamOps.cpp.inc"
      >();
}

/// `%resource[%offset, %length], ...` (possibly none).
static ParseResult
parseBindings(OpAsmParser &parser,
              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &resources,
              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &offsets,
              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &lengths) {
  OpAsmParser::UnresolvedOperand first;
  OptionalParseResult any = parser.parseOptionalOperand(first);
  if (!any.has_value()) {
    return success();
  }
  if (failed(*any)) {
    return failure();
  }
  auto parseRange = [&](OpAsmParser::UnresolvedOperand resource) {
    resources.push_back(resource);
    return failure(
        parser.parseLSquare() || parser.parseOperand(offsets.emplace_back()) ||
        parser.parseComma() || parser.parseOperand(lengths.emplace_back()) ||
        parser.parseRSquare());
  };
  if (failed(parseRange(first))) {
    return failure();
  }
  while (succeeded(parser.parseOptionalComma())) {
    OpAsmParser::UnresolvedOperand resource;
    if (parser.parseOperand(resource) || failed(parseRange(resource))) {
      return failure();
    }
  }
  return success();
}

static void printBindings(OpAsmPrinter &p, Operation *, OperandRange resources,
                          OperandRange offsets, OperandRange lengths) {
  for (unsigned i = 0; i < resources.size(); ++i) {
    if (i) {
      p << ", ";
    }
    p << resources[i] << "[" << offsets[i] << ", " << lengths[i] << "]";
  }
}

#define GET_OP_CLASSES
#include "Strata/Dialect/Stream/IR/StreamOps.cpp.inc"

LogicalResult ResourceConstantOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getValue().getType());
  if (!type || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat()) {
    return emitOpError("value must be a static tensor of integers or floats, "
                       "not ")
           << getValue().getType();
  }
  return success();
}

LogicalResult TensorExportOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  if (static_cast<int64_t>(getDynamicDims().size()) !=
      type.getNumDynamicDims()) {
    return emitOpError("has ")
           << getDynamicDims().size() << " dynamic dimension sizes for " << type
           << ", which has " << type.getNumDynamicDims();
  }
  return success();
}

void CmdExecuteOp::build(OpBuilder &builder, OperationState &state,
                         Value awaitTimepoint) {
  if (awaitTimepoint) {
    state.addOperands(awaitTimepoint);
  }
  state.addTypes(TimepointType::get(builder.getContext()));
  Region *body = state.addRegion();
  body->push_back(new Block());
}

LogicalResult CmdExecuteOp::verify() {
  for (Operation &op : getBody().front()) {
    if (!isa<CmdDispatchOp, CmdBarrierOp>(op)) {
      return op.emitOpError("cannot be recorded in a 'stream.cmd.execute'; "
                            "only dispatches and barriers can");
    }
  }
  return success();
}

LogicalResult CmdDispatchOp::verify() {
  if (getResources().size() != getOffsets().size() ||
      getResources().size() != getLengths().size()) {
    return emitOpError("needs an offset and a length per resource");
  }
  if (getEntryPoint().getNestedReferences().size() != 1) {
    return emitOpError("entry point ")
           << getEntryPoint() << " must be @executable::@export";
  }
  for (Type type : getConstants().getTypes()) {
    if (!type.isIndex() && !type.isIntOrFloat()) {
      return emitOpError("push constant of type ")
             << type << " is not a scalar";
    }
  }
  return success();
}
