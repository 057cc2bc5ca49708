// Passes.h - the stream phase's passes (Passes.td).

#ifndef STRATA_DIALECT_STREAM_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_STREAM_TRANSFORMS_PASSES_H

#include "Strata/Dialect/Stream/IR/StreamOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::strata::stream {

#define GEN_PASS_DECL
#include "Strata/Dialect/Stream/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Strata/Dialect/Stream/Transforms/Passes.h.inc"

} // namespace mlir::strata::stream

#endif // STRATA_DIALECT_STREAM_TRANSFORMS_PASSES_H
