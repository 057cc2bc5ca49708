// Passes.h - the hal phase's passes (Passes.td).

#ifndef STRATA_DIALECT_HAL_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_HAL_TRANSFORMS_PASSES_H

#include "Strata/Dialect/HAL/IR/HALOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::strata::hal {

#define GEN_PASS_DECL
#include "Strata/Dialect/HAL/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Strata/Dialect/HAL/Transforms/Passes.h.inc"

} // namespace mlir::strata::hal

#endif // STRATA_DIALECT_HAL_TRANSFORMS_PASSES_H
