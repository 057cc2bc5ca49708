// StandardToVM.h - type converter and patterns that lower func, arith, math,
// cf and index to the vm dialect (see --strata-convert-to-vm in Passes.td).

#ifndef STRATA_CONVERSION_STANDARDTOVM_STANDARDTOVM_H
#define STRATA_CONVERSION_STANDARDTOVM_STANDARDTOVM_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata {

/// Maps source types to vm register types: i1/i8/i16/i32 -> i32,
/// i64/index -> i64, f32 and f64 and the vm ref types to themselves. Every
/// other type has no conversion. Thread-compatible; holds no state beyond
/// MLIR's conversion caches.
class VMTypeConverter : public TypeConverter {
public:
  VMTypeConverter();
};

/// func.func/call/return and cf.br/cond_br/switch/assert to vm structure and
/// control flow.
void populateFuncToVMPatterns(const TypeConverter &typeConverter,
                              RewritePatternSet &patterns);

/// arith ops to vm arithmetic, comparison and cast ops.
void populateArithToVMPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns);

/// index dialect ops to i64 vm ops.
void populateIndexToVMPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns);

/// math ops that have a vm opcode.
void populateMathToVMPatterns(const TypeConverter &typeConverter,
                              RewritePatternSet &patterns);

/// Rewrites (math, arith and index to other math/arith ops) that run before
/// the conversion so that it meets only ops with a vm counterpart:
/// ceil/floor divisions, math expansions (tan, sinh, rsqrt, log1p, ...).
void populateStandardToVMExpansionPatterns(RewritePatternSet &patterns);

} // namespace mlir::strata

#endif // STRATA_CONVERSION_STANDARDTOVM_STANDARDTOVM_H
