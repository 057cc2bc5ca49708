// Passes.h - declarations and registration of the Strata conversion passes.

#ifndef STRATA_CONVERSION_PASSES_H
#define STRATA_CONVERSION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::strata {

#define GEN_PASS_DECL
#include "Strata/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Strata/Conversion/Passes.h.inc"

} // namespace mlir::strata

#endif // STRATA_CONVERSION_PASSES_H
