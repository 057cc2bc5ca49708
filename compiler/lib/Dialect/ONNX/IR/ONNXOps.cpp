// ONNXOps.cpp - the onnx dialect: registration, verifier, diagnostics names.

#include "Strata/Dialect/ONNX/IR/ONNXOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::strata::onnx;

#include "Strata/Dialect/ONNX/IR/ONNXDialect.cpp.inc"

void ONNXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Strata/Dialect/ONNX/IR/ONNXOps.cpp.inc"
      >();
}

LogicalResult NodeOp::verify() {
  if (getOpType().empty()) {
    return emitOpError("has an empty op_type");
  }
  if (getOpset() < 1) {
    return emitOpError("opset must be at least 1, got ") << getOpset();
  }
  return success();
}

std::string NodeOp::describe() {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (std::optional<StringRef> name = getNodeName(); name && !name->empty()) {
    os << "'" << *name << "' ";
  }
  os << "(";
  if (!getDomain().empty() && getDomain() != "ai.onnx") {
    os << getDomain() << ".";
  }
  os << getOpType() << ", opset " << getOpset() << ")";
  return text;
}

#define GET_OP_CLASSES
#include "Strata/Dialect/ONNX/IR/ONNXOps.cpp.inc"
