// Peephole.cpp - --strata-vm-peephole: immediate-operand and fused
// compare-and-branch opcodes (see Passes.td).

#include "Strata/Dialect/VM/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::strata::vm {
#define GEN_PASS_DEF_VMPEEPHOLEPASS
#include "Strata/Dialect/VM/Transforms/Passes.h.inc"
} // namespace mlir::strata::vm

using namespace mlir;
using namespace mlir::strata::vm;

namespace {

std::optional<int64_t> constantI64(Value value) {
  APInt bits;
  if (matchPattern(value, m_ConstantInt(&bits))) {
    return bits.getSExtValue();
  }
  return std::nullopt;
}

/// x op c (or c op x for commutative ops) -> x op.imm c.
template <typename OpTy, typename ImmOpTy, bool commutative>
struct ImmediateOperand : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getA();
    std::optional<int64_t> c = constantI64(op.getB());
    if (!c && commutative) {
      x = op.getB();
      c = constantI64(op.getA());
    }
    if (!c) {
      return failure();
    }
    rewriter.replaceOpWithNewOp<ImmOpTy>(op, op.getType(), x,
                                         rewriter.getI64IntegerAttr(*c));
    return success();
  }
};

/// x - c -> x + (-c), except for the one c whose negation overflows.
struct SubtractImmediate : OpRewritePattern<SubI64Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SubI64Op op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> c = constantI64(op.getB());
    if (!c || *c == std::numeric_limits<int64_t>::min()) {
      return failure();
    }
    rewriter.replaceOpWithNewOp<AddI64ImmOp>(op, op.getType(), op.getA(),
                                             rewriter.getI64IntegerAttr(-*c));
    return success();
  }
};

/// x % c with c not 0 or -1 (those keep the checked opcode).
struct RemainderImmediate : OpRewritePattern<RemSI64Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RemSI64Op op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> c = constantI64(op.getB());
    if (!c || *c == 0 || *c == -1) {
      return failure();
    }
    rewriter.replaceOpWithNewOp<RemSI64ImmOp>(op, op.getType(), op.getA(),
                                              rewriter.getI64IntegerAttr(*c));
    return success();
  }
};

/// cond_br (cmp.lt.i64.s a, b) -> cond_br.lt.i64.s a, b.
struct FuseCompareBranch : OpRewritePattern<CondBrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondBrOp op,
                                PatternRewriter &rewriter) const override {
    auto cmp = op.getCondition().getDefiningOp<CmpLtSI64Op>();
    if (!cmp || !cmp->hasOneUse()) {
      return failure();
    }
    rewriter.replaceOpWithNewOp<CondBrLtSI64Op>(
        op, cmp.getA(), cmp.getB(), op.getTrueDestOperands(),
        op.getFalseDestOperands(), op.getTrueDest(), op.getFalseDest());
    rewriter.eraseOp(cmp);
    return success();
  }
};

/// cond_br.lt.i64.s a, (const c) -> cond_br.lt.i64.s.imm a, c.
struct CompareBranchImmediate : OpRewritePattern<CondBrLtSI64Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondBrLtSI64Op op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> c = constantI64(op.getB());
    if (!c) {
      return failure();
    }
    rewriter.replaceOpWithNewOp<CondBrLtSI64ImmOp>(
        op, op.getA(), rewriter.getI64IntegerAttr(*c),
        op.getTrueDestOperands(), op.getFalseDestOperands(), op.getTrueDest(),
        op.getFalseDest());
    return success();
  }
};

struct VMPeepholePass
    : mlir::strata::vm::impl::VMPeepholePassBase<VMPeepholePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ImmediateOperand<AddI64Op, AddI64ImmOp, true>,
                 ImmediateOperand<MulI64Op, MulI64ImmOp, true>,
                 SubtractImmediate, RemainderImmediate, FuseCompareBranch,
                 CompareBranchImmediate>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError("vm peephole rewrites did not converge");
      signalPassFailure();
    }
  }
};

} // namespace
