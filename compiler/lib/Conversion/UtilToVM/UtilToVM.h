// UtilToVM.h - util.global and its loads and stores in the vm conversion.

#ifndef STRATA_CONVERSION_UTILTOVM_UTILTOVM_H
#define STRATA_CONVERSION_UTILTOVM_UTILTOVM_H

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata {

/// util.global -> vm.global.{i32,i64,f32,f64} (with its initial value) or,
/// for a tensor, vm.global.ref of a hal.buffer_view; util.global.load/store
/// -> vm.global.load/store of the same kind; util.assert_eq ->
/// vm.cond_fail.ne.i64 (FAILED_PRECONDITION, both values in the message).
void populateUtilToVMPatterns(const TypeConverter &typeConverter,
                              RewritePatternSet &patterns);

/// After the conversion: the module's initializer calls the function that
/// stores the initial values of tensor globals (util::kGlobalInitializerName),
/// after the kernel libraries are loaded.
void callGlobalInitializer(vm::ModuleOp vmModule);

} // namespace mlir::strata

#endif // STRATA_CONVERSION_UTILTOVM_UTILTOVM_H
