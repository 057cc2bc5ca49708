// Passes.h - the flow phase's passes (Passes.td).

#ifndef STRATA_DIALECT_FLOW_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_FLOW_TRANSFORMS_PASSES_H

#include "Strata/Dialect/Flow/IR/FlowOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::strata::flow {

/// Constant tensors of more bytes than this (other than splats) stay on the
/// host and are passed to the dispatches that read them (the stream phase
/// binds them in place from the module's rodata) instead of being copied
/// into each dispatch's code: a model's weights are stored once.
inline constexpr int64_t kMaxInlinedConstantBytes = 256;

#define GEN_PASS_DECL
#include "Strata/Dialect/Flow/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Strata/Dialect/Flow/Transforms/Passes.h.inc"

} // namespace mlir::strata::flow

#endif // STRATA_DIALECT_FLOW_TRANSFORMS_PASSES_H
