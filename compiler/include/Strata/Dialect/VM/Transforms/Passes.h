// Passes.h - the vm dialect's transformations (Passes.td).

#ifndef STRATA_DIALECT_VM_TRANSFORMS_PASSES_H
#define STRATA_DIALECT_VM_TRANSFORMS_PASSES_H

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/Pass/Pass.h"

namespace mlir::strata::vm {

#define GEN_PASS_DECL
#include "Strata/Dialect/VM/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Strata/Dialect/VM/Transforms/Passes.h.inc"

} // namespace mlir::strata::vm

#endif // STRATA_DIALECT_VM_TRANSFORMS_PASSES_H
