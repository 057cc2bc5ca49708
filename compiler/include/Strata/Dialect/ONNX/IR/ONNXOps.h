// ONNXOps.h - the onnx dialect (ONNXOps.td): an imported ONNX graph.

#ifndef STRATA_DIALECT_ONNX_IR_ONNXOPS_H
#define STRATA_DIALECT_ONNX_IR_ONNXOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <string>

#include "Strata/Dialect/ONNX/IR/ONNXDialect.h.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/ONNX/IR/ONNXOps.h.inc"

#endif // STRATA_DIALECT_ONNX_IR_ONNXOPS_H
