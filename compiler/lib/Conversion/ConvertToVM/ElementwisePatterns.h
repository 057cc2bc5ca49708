// ElementwisePatterns.h - pattern templates shared by the arith and math
// conversions: one source op to one vm op per register type.

#ifndef STRATA_CONVERSION_CONVERTTOVM_ELEMENTWISEPATTERNS_H
#define STRATA_CONVERSION_CONVERTTOVM_ELEMENTWISEPATTERNS_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata::vm_conversion {

/// A float op to OpF32 or OpF64 by its result type; the operands are passed
/// in order (unary, binary or ternary ops alike).
template <typename SrcOp, typename OpF32, typename OpF64>
struct FloatOpConversion : OpConversionPattern<SrcOp> {
  using OpConversionPattern<SrcOp>::OpConversionPattern;
  using OpAdaptor = typename SrcOp::Adaptor;

  LogicalResult
  matchAndRewrite(SrcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op->getResult(0).getType();
    if (type.isF32()) {
      rewriter.replaceOpWithNewOp<OpF32>(op, type, adaptor.getOperands());
      return success();
    }
    if (type.isF64()) {
      rewriter.replaceOpWithNewOp<OpF64>(op, type, adaptor.getOperands());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not f32 or f64");
  }
};

} // namespace mlir::strata::vm_conversion

#endif // STRATA_CONVERSION_CONVERTTOVM_ELEMENTWISEPATTERNS_H
