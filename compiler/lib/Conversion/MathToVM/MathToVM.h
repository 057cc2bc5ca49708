// MathToVM.h - math ops in the vm conversion, and the math expansions that
// run before it.

#ifndef STRATA_CONVERSION_MATHTOVM_MATHTOVM_H
#define STRATA_CONVERSION_MATHTOVM_MATHTOVM_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata {

/// math ops that have a vm opcode.
void populateMathToVMPatterns(const TypeConverter &typeConverter,
                              RewritePatternSet &patterns);

/// Rewrites (math to other math/arith ops) that run before the conversion
/// so that it meets only ops with a vm counterpart: tan, sinh, rsqrt,
/// log1p, ...
void populateMathToVMExpansionPatterns(RewritePatternSet &patterns);

} // namespace mlir::strata

#endif // STRATA_CONVERSION_MATHTOVM_MATHTOVM_H
