// Passes.h - the input phase's passes (Passes.td).

#ifndef STRATA_INPUTCONVERSION_PASSES_H
#define STRATA_INPUTCONVERSION_PASSES_H

#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::strata::input {

#define GEN_PASS_DECL
#include "Strata/InputConversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Strata/InputConversion/Passes.h.inc"

/// A tensor or memref of this many bytes or more is refused: byte sizes,
/// offsets and the sums of a few of them must stay within int64 in every
/// phase.
inline constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 62;

/// Checks every ranked tensor or memref type under `root` (results, block
/// and function arguments, function results) against kMaxTensorBytes, its
/// dynamic dimensions counted as 1 and the product computed without
/// overflow; the error names the type at the op that has it. strata-compile
/// runs it on its input, and --strata-insert-shape-checks after the input
/// phase has made new types (an ONNX ConstantOfShape).
LogicalResult checkTensorByteSizes(Operation *root);

} // namespace mlir::strata::input

#endif // STRATA_INPUTCONVERSION_PASSES_H
