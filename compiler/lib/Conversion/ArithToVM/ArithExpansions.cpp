// ArithExpansions.cpp - rewrites that run before the vm conversion so it
// meets only arith ops with a vm counterpart: the upstream arith ceil/floor
// division expansion, and the index ceil/floor divisions as their arith
// forms.

#include "ArithToVM/ArithToVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

/// The index ceil/floor divisions become their arith forms on index, which
/// the upstream arith expansion then lowers.
template <typename IndexOp, typename ArithOp>
struct IndexDivToArith : OpRewritePattern<IndexOp> {
  using OpRewritePattern<IndexOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(IndexOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ArithOp>(op, op.getLhs(), op.getRhs());
    return success();
  }
};

} // namespace

void mlir::strata::populateArithToVMExpansionPatterns(
    RewritePatternSet &patterns) {
  arith::populateCeilFloorDivExpandOpsPatterns(patterns);
  patterns.add<IndexDivToArith<index::CeilDivSOp, arith::CeilDivSIOp>,
               IndexDivToArith<index::CeilDivUOp, arith::CeilDivUIOp>,
               IndexDivToArith<index::FloorDivSOp, arith::FloorDivSIOp>>(
      patterns.getContext());
}
