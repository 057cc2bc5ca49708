// CheckToVM.h - check ops in the vm conversion: calls of the native `check`
// module's imports (tools/common/check_module.h has the contract).

#ifndef STRATA_CONVERSION_CHECKTOVM_CHECKTOVM_H
#define STRATA_CONVERSION_CHECKTOVM_CHECKTOVM_H

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata {

/// Adds to `vmModule` the `check.*` imports its (not yet converted) check ops
/// call, and only those.
void materializeCheckImports(vm::ModuleOp vmModule);

/// check.expect_true/false(i32) and check.expect_eq/almost_eq(tensor,
/// tensor) -> vm.call of the check module; tensors are hal.buffer_views.
/// The `_const` forms are expanded by the input phase before this.
void populateCheckToVMPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns);

} // namespace mlir::strata

#endif // STRATA_CONVERSION_CHECKTOVM_CHECKTOVM_H
