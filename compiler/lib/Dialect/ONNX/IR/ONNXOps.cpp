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
  size_t names = getSubgraphNames() ? getSubgraphNames()->size() : 0;
  if (names != getSubgraphs().size()) {
    return emitOpError("has ")
           << getSubgraphs().size() << " subgraph regions but " << names
           << " subgraph names";
  }
  for (Region &region : getSubgraphs()) {
    if (region.empty() || region.front().empty() ||
        !isa<YieldOp>(region.front().back())) {
      return emitOpError("has a subgraph region that does not end in "
                         "onnx.yield");
    }
  }
  return success();
}

Region *NodeOp::subgraph(StringRef name) {
  if (!getSubgraphNames()) {
    return nullptr;
  }
  for (auto [index, attr] : llvm::enumerate(*getSubgraphNames())) {
    if (cast<StringAttr>(attr).getValue() == name) {
      return &getSubgraphs()[index];
    }
  }
  return nullptr;
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
