//===- MathExpansions.h - library-free math the upstream patterns lack
//-----===//
//
// Upstream MLIR approximates the transcendental math ops on f32 only (f16 is
// computed in f32). These patterns cover the rest, so no kernel calls libm:
// math.log10 (as log times 1/ln 10, any float type: the vm conversion's
// pattern too, Strata/Conversion/MathExpansions.h), math.sincos (as sin and
// cos), and f64 versions of exp, log, log1p, log2, expm1, sin, cos, atan,
// atan2, asin, acos, erf, erfc and cbrt written with arith ops (range
// reduction, then Taylor or atanh series to double precision; powf, exp2,
// cosh, tan reach them through upstream's expansions), and sinh, tanh (f64),
// asinh, atanh and acosh through expm1 and log1p, accurate near 0.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_CODEGEN_LLVMCPU_MATHEXPANSIONS_H_
#define STRATA_LIB_CODEGEN_LLVMCPU_MATHEXPANSIONS_H_

#include "mlir/IR/PatternMatch.h"

namespace mlir::strata::llvmcpu {

void populateMathExpansionPatterns(RewritePatternSet &patterns);

} // namespace mlir::strata::llvmcpu

#endif // STRATA_LIB_CODEGEN_LLVMCPU_MATHEXPANSIONS_H_
