// ArithToVM.h - arith and index ops in the vm conversion, and the arith and
// index rewrites that run before it.

#ifndef STRATA_CONVERSION_ARITHTOVM_ARITHTOVM_H
#define STRATA_CONVERSION_ARITHTOVM_ARITHTOVM_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata {

/// arith ops to vm arithmetic, comparison and cast ops.
void populateArithToVMPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns);

/// index dialect ops to i64 vm ops.
void populateIndexToVMPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns);

/// Rewrites (arith and index to other arith ops) that run before the
/// conversion so that it meets only ops with a vm counterpart: the arith and
/// index ceil/floor divisions.
void populateArithToVMExpansionPatterns(RewritePatternSet &patterns);

} // namespace mlir::strata

#endif // STRATA_CONVERSION_ARITHTOVM_ARITHTOVM_H
