// MathExpansions.h - math rewrites that the vm conversion (MathToVM) and the
// llvm-cpu code generator (Codegen/LLVMCPU/MathExpansions.cpp) share, so
// each expansion is written once. Header-only: the two link nothing of
// each other.

#ifndef STRATA_CONVERSION_MATHEXPANSIONS_H
#define STRATA_CONVERSION_MATHEXPANSIONS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::strata {

/// log10(x) = log(x) * (1 / ln 10), on any float type, scalar or shaped
/// (the log is then an opcode, an approximation or an expansion of its
/// own).
struct Log10ToLog : OpRewritePattern<math::Log10Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Log10Op op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    if (!element) {
      return failure();
    }
    // 1 / ln 10, correctly rounded to double.
    TypedAttr scale = rewriter.getFloatAttr(element, 0.43429448190325182765);
    if (auto shaped = dyn_cast<ShapedType>(type)) {
      scale = DenseElementsAttr::get(shaped, scale);
    }
    Location loc = op.getLoc();
    Value log = math::LogOp::create(rewriter, loc, op.getOperand());
    Value factor = arith::ConstantOp::create(rewriter, loc, scale);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, log, factor);
    return success();
  }
};

} // namespace mlir::strata

#endif // STRATA_CONVERSION_MATHEXPANSIONS_H
