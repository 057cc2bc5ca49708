// PropagateTransposes.cpp - --strata-propagate-transposes: moves
// linalg.transpose ops below elementwise linalg.generic and tensor.concat
// ops and cancels inverse pairs, so that a model written in NCHW runs its
// convolutions back to back in NHWC with one transpose at each end.

#include "Strata/InputConversion/Passes.h"

#include <numeric>

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::strata::input {
#define GEN_PASS_DEF_PROPAGATETRANSPOSESPASS
#include "Strata/InputConversion/Passes.h.inc"
} // namespace mlir::strata::input

using namespace mlir;

namespace {

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm)) {
    if (static_cast<int64_t>(i) != p) {
      return false;
    }
  }
  return true;
}

/// transpose(transpose(x, p1), p2) -> transpose(x, p1 . p2), or x.
struct FoldTransposeChain : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<linalg::TransposeOp>();
    if (!inner) {
      return failure();
    }
    ArrayRef<int64_t> first = inner.getPermutation();
    ArrayRef<int64_t> second = op.getPermutation();
    SmallVector<int64_t> combined;
    for (int64_t p : second) {
      combined.push_back(first[p]);
    }
    if (isIdentity(combined)) {
      rewriter.replaceOp(op, inner.getInput());
      return success();
    }
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(op, inner.getInput(),
                                                     op.getInit(), combined);
    return success();
  }
};

/// The transposed value of a constant: `attr` read as transpose(., perm)'s
/// input, given the transposed (result) attribute.
DenseElementsAttr untransposeConstant(DenseElementsAttr attr,
                                      ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(attr.getType());
  if (attr.isSplat()) {
    SmallVector<int64_t> shape(type.getRank());
    for (auto [j, p] : llvm::enumerate(perm)) {
      shape[p] = type.getDimSize(j);
    }
    return DenseElementsAttr::get(type.clone(shape),
                                  attr.getSplatValue<Attribute>());
  }
  return {};
}

/// An elementwise generic (all parallel, identity result map, the result
/// not read) with an identity-mapped input transpose(y, P): computed on y's
/// layout, its result transposed by P instead. Every other identity-mapped
/// input must be a transpose by the same P or a splat constant; broadcast
/// inputs are read through their map composed with the permutation.
struct SinkTransposeThroughElementwise : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
        op.getNumReductionLoops() != 0) {
      return failure();
    }
    OpOperand *init = op.getDpsInitOperand(0);
    if (!op.getMatchingIndexingMap(init).isIdentity() ||
        op.payloadUsesValueFromOperand(init)) {
      return failure();
    }
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = resultType.getRank();
    std::optional<SmallVector<int64_t>> perm;
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (!op.getMatchingIndexingMap(input).isIdentity()) {
        continue;
      }
      if (auto t = input->get().getDefiningOp<linalg::TransposeOp>()) {
        SmallVector<int64_t> p(t.getPermutation());
        if (perm && *perm != p) {
          return failure();
        }
        perm = p;
      }
    }
    if (!perm || static_cast<int64_t>(perm->size()) != rank) {
      return failure();
    }
    // e-space (y's layout) -> d-space (the op's): d_j = e_{P[j]}.
    SmallVector<AffineExpr> toD;
    for (int64_t p : *perm) {
      toD.push_back(rewriter.getAffineDimExpr(p));
    }
    AffineMap q = AffineMap::get(rank, 0, toD, rewriter.getContext());
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      Value value = input->get();
      if (map.isIdentity()) {
        if (auto t = value.getDefiningOp<linalg::TransposeOp>()) {
          inputs.push_back(t.getInput());
          maps.push_back(rewriter.getMultiDimIdentityMap(rank));
          continue;
        }
        DenseElementsAttr attr;
        if (matchPattern(value, m_Constant(&attr))) {
          DenseElementsAttr moved = untransposeConstant(attr, *perm);
          if (!moved) {
            return failure();
          }
          inputs.push_back(arith::ConstantOp::create(rewriter, op.getLoc(),
                                                     moved));
          maps.push_back(rewriter.getMultiDimIdentityMap(rank));
          continue;
        }
        return failure();
      }
      inputs.push_back(value);
      maps.push_back(map.compose(q));
    }
    // The sizes (dynamic ones too) are the original destination's.
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, op.getLoc(), op.getDpsInits()[0]);
    SmallVector<OpFoldResult> shape(rank);
    for (auto [j, p] : llvm::enumerate(*perm)) {
      shape[p] = sizes[j];
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), shape,
                                          resultType.getElementType());
    auto moved = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{empty.getType()}, inputs,
        ValueRange{empty}, maps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), moved.getRegion(),
                                moved.getRegion().end());
    // linalg.index d_j is e_{P[j]} now.
    moved.getRegion().walk([&](linalg::IndexOp index) {
      index.setDim((*perm)[index.getDim()]);
    });
    Value out = tensor::EmptyOp::create(rewriter, op.getLoc(), sizes,
                                        resultType.getElementType());
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(
        op, moved->getResult(0), out, *perm);
    return success();
  }
};

/// concat(transpose(a, P), transpose(b, P), dim) ->
/// transpose(concat(a, b, P[dim]), P).
struct SinkTransposeThroughConcat : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm;
    SmallVector<Value> inputs;
    for (Value input : op.getInputs()) {
      auto t = input.getDefiningOp<linalg::TransposeOp>();
      if (!t) {
        return failure();
      }
      SmallVector<int64_t> p(t.getPermutation());
      if (perm && *perm != p) {
        return failure();
      }
      perm = p;
      inputs.push_back(t.getInput());
    }
    if (!perm) {
      return failure();
    }
    int64_t dim = (*perm)[op.getDim()];
    auto concat = tensor::ConcatOp::create(rewriter, op.getLoc(), dim, inputs);
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> concatSizes =
        tensor::getMixedSizes(rewriter, op.getLoc(), concat.getResult());
    SmallVector<OpFoldResult> sizes;
    for (int64_t p : *perm) {
      sizes.push_back(concatSizes[p]);
    }
    Value out = tensor::EmptyOp::create(rewriter, op.getLoc(), sizes,
                                        resultType.getElementType());
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(op, concat.getResult(),
                                                     out, *perm);
    return success();
  }
};

/// collapse_shape(transpose(x, P)) -> transpose(collapse_shape(x), P') when
/// every merged group of the result reads consecutive dimensions of x in
/// order (a batch and a head count merged in front of a matmul operand): the
/// collapse becomes a view of x, and the transpose feeds its consumer
/// directly, which dispatch formation can then fuse it into (a batch_matmul
/// reading a key cache transposed).
struct HoistCollapseAboveTranspose : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getSrc().getDefiningOp<linalg::TransposeOp>();
    // Other readers of its sizes only (the importer's shape checks, which
    // canonicalization moves to the transpose's destination).
    if (!transpose ||
        !llvm::all_of(transpose->getUsers(), [&](Operation *user) {
          return user == op.getOperation() || isa<tensor::DimOp>(user);
        })) {
      return failure();
    }
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<ReassociationIndices> groups = op.getReassociationIndices();
    // The source dimensions of each result group, in the source's order.
    SmallVector<std::pair<int64_t, int64_t>> sourceGroups; // first, size
    for (const ReassociationIndices &group : groups) {
      for (auto [i, d] : llvm::enumerate(group)) {
        if (perm[d] != perm[group.front()] + static_cast<int64_t>(i)) {
          return failure();
        }
      }
      sourceGroups.push_back(
          {perm[group.front()], static_cast<int64_t>(group.size())});
    }
    // Groups ordered by their first source dimension give the collapse of
    // the source; the new permutation maps result group -> source group.
    SmallVector<int64_t> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    llvm::sort(order, [&](int64_t a, int64_t b) {
      return sourceGroups[a].first < sourceGroups[b].first;
    });
    SmallVector<ReassociationIndices> sourceReassociation;
    SmallVector<int64_t> rank(groups.size());
    for (auto [position, g] : llvm::enumerate(order)) {
      ReassociationIndices group;
      for (int64_t i = 0; i < sourceGroups[g].second; ++i) {
        group.push_back(sourceGroups[g].first + i);
      }
      sourceReassociation.push_back(group);
      rank[g] = position;
    }
    Location loc = op.getLoc();
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, loc, transpose.getInput(), sourceReassociation);
    SmallVector<int64_t> newPerm;
    for (int64_t g = 0, e = groups.size(); g < e; ++g) {
      newPerm.push_back(rank[g]);
    }
    SmallVector<OpFoldResult> collapsedSizes =
        tensor::getMixedSizes(rewriter, loc, collapsed);
    SmallVector<OpFoldResult> sizes;
    for (int64_t p : newPerm) {
      sizes.push_back(collapsedSizes[p]);
    }
    Value out = tensor::EmptyOp::create(rewriter, loc, sizes,
                                        op.getResultType().getElementType());
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(op, collapsed, out,
                                                     newPerm);
    return success();
  }
};

/// Whether `user` reduces all of `value` (rank 1) to one element per result
/// with combiners whose results do not depend on the order they visit the
/// elements in (min and max; integer sums and bitwise ops), each combining
/// the element with its own accumulator. Float sums are left alone: their
/// rounding depends on the order.
bool isOrderFreeWholeReduction(Operation *user, Value value) {
  auto generic = dyn_cast<linalg::GenericOp>(user);
  if (!generic || generic.getNumLoops() != 1 ||
      generic.getNumReductionLoops() != 1 || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() < 1 || generic.getDpsInputs()[0] != value ||
      !generic.getIndexingMapsArray()[0].isIdentity()) {
    return false;
  }
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  unsigned results = generic.getNumDpsInits();
  if (body.getOperations().size() != results + 1 ||
      yield.getNumOperands() != results) {
    return false;
  }
  for (unsigned i = 0; i < results; ++i) {
    BlockArgument acc = body.getArgument(1 + i);
    Operation *combiner = yield.getOperand(i).getDefiningOp();
    if (generic.getIndexingMapsArray()[1 + i].getNumResults() != 0 ||
        !combiner || combiner->getNumOperands() != 2 || !acc.hasOneUse() ||
        !llvm::is_contained(combiner->getOperands(), acc) ||
        !llvm::is_contained(combiner->getOperands(), body.getArgument(0)) ||
        !isa<arith::MinimumFOp, arith::MaximumFOp, arith::MinNumFOp,
             arith::MaxNumFOp, arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp,
             arith::MaxUIOp, arith::AddIOp, arith::AndIOp, arith::OrIOp,
             arith::XOrIOp>(combiner)) {
      return false;
    }
  }
  return true;
}

/// collapse_shape(transpose(x, P)) to one dimension, read only by whole
/// reductions whose result does not depend on the order (a dynamically
/// quantized layer's range: the minimum and maximum of an NCHW activation
/// computed in NHWC) -> collapse_shape(x): the reductions read the elements
/// in x's order and the transpose, a copy of the whole tensor, goes.
struct FlattenBelowTranspose : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getSrc().getDefiningOp<linalg::TransposeOp>();
    if (!transpose || op.getResultType().getRank() != 1 || op->use_empty() ||
        !llvm::all_of(op->getUsers(), [&](Operation *user) {
          return isOrderFreeWholeReduction(user, op.getResult());
        })) {
      return failure();
    }
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, transpose.getInput(), op.getReassociationIndices());
    return success();
  }
};

struct PropagateTransposesPass
    : mlir::strata::input::impl::PropagateTransposesPassBase<
          PropagateTransposesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposeChain, SinkTransposeThroughElementwise,
                 SinkTransposeThroughConcat, HoistCollapseAboveTranspose,
                 FlattenBelowTranspose>(&getContext());
    // The importer reshapes through a flat vector (collapse, then expand);
    // composed, the pair is the one collapse that the hoist above matches.
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      return signalPassFailure();
    }
  }
};

} // namespace
