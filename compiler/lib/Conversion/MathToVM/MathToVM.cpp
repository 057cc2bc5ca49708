// MathToVM.cpp - patterns lowering the math ops that have a vm opcode. The
// others the pass supports are expanded first (StandardExpansions.cpp).

#include "MathToVM/MathToVM.h"

#include "ConvertToVM/ElementwisePatterns.h"
#include "ConvertToVM/IntegerRepresentation.h"

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::vm_conversion;

namespace {

/// math.absi: narrow operands are sign-extended first.
struct AbsIOpConversion : OpConversionPattern<math::AbsIOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(math::AbsIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned width = getIntegerWidth(op.getType());
    if (width == 64) {
      rewriter.replaceOpWithNewOp<vm::AbsI64Op>(op, rewriter.getI64Type(),
                                                adaptor.getOperand());
      return success();
    }
    if (width == 1) {
      // |0| = 0 and |-1| = 1: an i1 is its own absolute value.
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    Value in = extendOperand(rewriter, loc, adaptor.getOperand(), width,
                             /*isSigned=*/true);
    rewriter.replaceOpWithNewOp<vm::AbsI32Op>(op, rewriter.getI32Type(), in);
    return success();
  }
};

/// math.ctlz: a narrow operand is zero-extended, counted in 32 bits, and
/// the 32 - width extra leading zeros are subtracted.
struct CtlzOpConversion : OpConversionPattern<math::CountLeadingZerosOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(math::CountLeadingZerosOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    unsigned width = getIntegerWidth(op.getType());
    if (width == 64) {
      rewriter.replaceOpWithNewOp<vm::CtlzI64Op>(op, rewriter.getI64Type(),
                                                 adaptor.getOperand());
      return success();
    }
    if (width == 1) {
      // ctlz(0) = 1 and ctlz(1) = 0.
      Value one = createI32Constant(rewriter, loc, 1);
      rewriter.replaceOpWithNewOp<vm::XorI32Op>(op, i32, adaptor.getOperand(),
                                                one);
      return success();
    }
    Value in = extendOperand(rewriter, loc, adaptor.getOperand(), width,
                             /*isSigned=*/false);
    Value count = vm::CtlzI32Op::create(rewriter, loc, i32, in);
    if (width < 32) {
      Value extra = createI32Constant(rewriter, loc, 32 - width);
      count = vm::SubI32Op::create(rewriter, loc, i32, count, extra);
    }
    rewriter.replaceOp(op, count);
    return success();
  }
};

template <typename SrcOp, typename OpF32, typename OpF64>
using Float = FloatOpConversion<SrcOp, OpF32, OpF64>;

} // namespace

void mlir::strata::populateMathToVMPatterns(const TypeConverter &typeConverter,
                                            RewritePatternSet &patterns) {
  patterns.add<Float<math::SqrtOp, vm::SqrtF32Op, vm::SqrtF64Op>,
               Float<math::ExpOp, vm::ExpF32Op, vm::ExpF64Op>,
               Float<math::LogOp, vm::LogF32Op, vm::LogF64Op>,
               Float<math::PowFOp, vm::PowF32Op, vm::PowF64Op>,
               Float<math::TanhOp, vm::TanhF32Op, vm::TanhF64Op>,
               Float<math::ErfOp, vm::ErfF32Op, vm::ErfF64Op>,
               Float<math::FloorOp, vm::FloorF32Op, vm::FloorF64Op>,
               Float<math::CeilOp, vm::CeilF32Op, vm::CeilF64Op>,
               Float<math::RoundOp, vm::RoundF32Op, vm::RoundF64Op>,
               Float<math::RoundEvenOp, vm::RoundEvenF32Op, vm::RoundEvenF64Op>,
               Float<math::FmaOp, vm::FmaF32Op, vm::FmaF64Op>,
               Float<math::AbsFOp, vm::AbsF32Op, vm::AbsF64Op>,
               Float<math::SinOp, vm::SinF32Op, vm::SinF64Op>,
               Float<math::CosOp, vm::CosF32Op, vm::CosF64Op>,
               Float<math::Exp2Op, vm::Exp2F32Op, vm::Exp2F64Op>,
               Float<math::Log2Op, vm::Log2F32Op, vm::Log2F64Op>,
               AbsIOpConversion, CtlzOpConversion>(typeConverter,
                                                   patterns.getContext());
}
