// HALOps.cpp - the hal dialect's registration, builders and verifiers.

#include "Strata/Dialect/HAL/IR/HALOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::strata::hal;

#include "Strata/Dialect/HAL/IR/HALDialect.cpp.inc"

void HALDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Strata/Dialect/HAL/IR/HALOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "Strata/Dialect/HAL/IR/HALOps.cpp.inc"

void ExecutableOp::build(OpBuilder &builder, OperationState &state,
                         StringRef name, StringRef format, StringRef data) {
  Properties &props = state.getOrAddProperties<Properties>();
  props.sym_name = builder.getStringAttr(name);
  props.format = builder.getStringAttr(format);
  props.data = builder.getStringAttr(data);
  state.addRegion()->push_back(new Block());
}

LogicalResult ExecutableExportOp::verify() {
  ArrayRef<int32_t> grid = getWorkgroupCount();
  if (grid.size() != 3 || llvm::any_of(grid, [](int32_t n) { return n < 1; })) {
    return emitOpError("workgroup_count must be 3 positive sizes (x, y, z)");
  }
  return success();
}
