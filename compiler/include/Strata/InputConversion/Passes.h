// Passes.h - the input phase's passes (Passes.td).

#ifndef STRATA_INPUTCONVERSION_PASSES_H
#define STRATA_INPUTCONVERSION_PASSES_H

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

} // namespace mlir::strata::input

#endif // STRATA_INPUTCONVERSION_PASSES_H
