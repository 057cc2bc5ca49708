// MathExpansions.cpp - rewrites that run before the vm conversion so it
// meets only math ops with a vm counterpart: upstream math expansions, plus
// the math ops with no upstream expansion that are cheap to build from
// vm-backed ones (log1p, expm1, trunc, isnan, isinf, isfinite; log10 is the
// code generator's too, Strata/Conversion/MathExpansions.h).

#include "MathToVM/MathToVM.h"

#include "Strata/Conversion/MathExpansions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;

namespace {

Value floatConstant(PatternRewriter &rewriter, Location loc, Type type,
                    double value) {
  return arith::ConstantOp::create(rewriter, loc,
                                   rewriter.getFloatAttr(type, value));
}

/// log1p(x) with Kahan's trick: u = 1 + x; x when u == 1, log(u) when u is
/// +inf, else log(u) * (x / (u - 1)), which cancels the rounding of u.
struct Log1pExpansion : OpRewritePattern<math::Log1pOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Log1pOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    if (!isa<FloatType>(type)) {
      return failure();
    }
    Value x = op.getOperand();
    Value one = floatConstant(rewriter, loc, type, 1.0);
    Value inf = floatConstant(rewriter, loc, type, INFINITY);
    Value u = arith::AddFOp::create(rewriter, loc, x, one);
    Value uMinusOne = arith::SubFOp::create(rewriter, loc, u, one);
    Value logU = math::LogOp::create(rewriter, loc, u);
    Value ratio = arith::DivFOp::create(rewriter, loc, x, uMinusOne);
    Value general = arith::MulFOp::create(rewriter, loc, logU, ratio);
    Value uIsInf =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OEQ, u, inf);
    Value large = arith::SelectOp::create(rewriter, loc, uIsInf, logU, general);
    Value uIsOne =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OEQ, u, one);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, uIsOne, x, large);
    return success();
  }
};

/// expm1(x) the same way: u = exp(x); x when u == 1, -1 when u - 1 == -1, u
/// when u is +inf, else (u - 1) * (x / log(u)).
struct ExpM1Expansion : OpRewritePattern<math::ExpM1Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpM1Op op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    if (!isa<FloatType>(type)) {
      return failure();
    }
    Value x = op.getOperand();
    Value one = floatConstant(rewriter, loc, type, 1.0);
    Value minusOne = floatConstant(rewriter, loc, type, -1.0);
    Value inf = floatConstant(rewriter, loc, type, INFINITY);
    Value u = math::ExpOp::create(rewriter, loc, x);
    Value uMinusOne = arith::SubFOp::create(rewriter, loc, u, one);
    Value logU = math::LogOp::create(rewriter, loc, u);
    Value ratio = arith::DivFOp::create(rewriter, loc, x, logU);
    Value result = arith::MulFOp::create(rewriter, loc, uMinusOne, ratio);
    Value uIsInf =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OEQ, u, inf);
    result = arith::SelectOp::create(rewriter, loc, uIsInf, u, result);
    Value isMinusOne = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OEQ, uMinusOne, minusOne);
    result =
        arith::SelectOp::create(rewriter, loc, isMinusOne, minusOne, result);
    Value uIsOne =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OEQ, u, one);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, uIsOne, x, result);
    return success();
  }
};

/// trunc(x) = x < 0 ? ceil(x) : floor(x) (NaN goes through floor).
struct TruncExpansion : OpRewritePattern<math::TruncOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::TruncOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    if (!isa<FloatType>(type)) {
      return failure();
    }
    Value x = op.getOperand();
    Value zero = floatConstant(rewriter, loc, type, 0.0);
    Value isNegative = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OLT, x, zero);
    Value ceil = math::CeilOp::create(rewriter, loc, x);
    Value floor = math::FloorOp::create(rewriter, loc, x);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNegative, ceil, floor);
    return success();
  }
};

/// isnan(x) = x unordered with itself.
struct IsNaNExpansion : OpRewritePattern<math::IsNaNOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::IsNaNOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getOperand().getType())) {
      return failure();
    }
    rewriter.replaceOpWithNewOp<arith::CmpFOp>(
        op, arith::CmpFPredicate::UNO, op.getOperand(), op.getOperand());
    return success();
  }
};

/// isinf(x) = |x| == inf; isfinite(x) = |x| < inf (false for NaN).
template <typename SrcOp, arith::CmpFPredicate predicate>
struct InfinityTestExpansion : OpRewritePattern<SrcOp> {
  using OpRewritePattern<SrcOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SrcOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getOperand().getType();
    if (!isa<FloatType>(type)) {
      return failure();
    }
    Value abs = math::AbsFOp::create(rewriter, loc, op.getOperand());
    Value inf = floatConstant(rewriter, loc, type, INFINITY);
    rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, predicate, abs, inf);
    return success();
  }
};

} // namespace

void mlir::strata::populateMathToVMExpansionPatterns(
    RewritePatternSet &patterns) {
  // Only the expansions into ops with a vm opcode; powf, exp2, ctlz, round,
  // ceil and fma have opcodes of their own.
  math::populateExpansionPatterns(
      patterns,
      {"tan", "sinh", "cosh", "asinh", "acosh", "atanh", "rsqrt", "fpowi"});
  patterns
      .add<Log1pExpansion, ExpM1Expansion, strata::Log10ToLog, TruncExpansion,
           IsNaNExpansion,
           InfinityTestExpansion<math::IsInfOp, arith::CmpFPredicate::OEQ>,
           InfinityTestExpansion<math::IsFiniteOp, arith::CmpFPredicate::OLT>>(
          patterns.getContext());
}
