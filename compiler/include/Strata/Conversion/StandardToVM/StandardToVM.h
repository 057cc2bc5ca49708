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

/// Set by the func.func conversion on an exported vm.func with i1
/// arguments: a DenseI32ArrayAttr of each argument's source width to
/// normalize (1; 0 for the others). normalizeExportedArguments consumes it.
inline constexpr llvm::StringLiteral kNarrowArgumentsAttr =
    "strata.narrow_arguments";

/// Likewise for i8/i16 results (their widths, 0 for the others).
inline constexpr llvm::StringLiteral kNarrowResultsAttr =
    "strata.narrow_results";

/// After the conversion, on exported functions, whose callers may be outside
/// the module and see whole i32 registers: at the entry, makes i1 arguments
/// 0 or 1 (the low bit); at each return, sign-extends i8 and i16 results.
void normalizeExportBoundaries(Operation *vmModule);

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
