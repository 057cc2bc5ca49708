// FuncToVM.h - func and cf ops in the vm conversion: functions, calls,
// imports and exports, branches and assertions.

#ifndef STRATA_CONVERSION_FUNCTOVM_FUNCTOVM_H
#define STRATA_CONVERSION_FUNCTOVM_FUNCTOVM_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata {

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

} // namespace mlir::strata

#endif // STRATA_CONVERSION_FUNCTOVM_FUNCTOVM_H
