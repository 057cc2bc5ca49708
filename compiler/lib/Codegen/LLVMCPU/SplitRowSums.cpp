//===- SplitRowSums.cpp - f64 row sums as per-lane partial sums -----------===//
//
// A workgroup's f64 sums along the innermost loop of contiguous rows
// (LayerNormalization's and GroupNormalization's statistics: the f32
// values and their squares summed in f64, ReductionOps.cpp
// onePassStatistics) vectorize poorly as they are: the vectorizer takes
// vectors across rows and 16 steps along them, then reduces each row's
// 16 lanes with shuffles, every 16 elements. Split first, the loop
// becomes (steps, lanes) with the lanes parallel and innermost: each step
// adds whole vectors of the rows' elements into per-lane partial sums (a
// temporary of rows x lanes, zero-filled), and a second generic adds each
// row's lanes into its output once at the end. The order of the f64
// additions changes, which the statistics allow (their sums carry 29 bits
// more than the f32 values; f32 sums keep their order).
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "IndexBounds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::strata::llvmcpu {
namespace {

// The partial sums live on the stack, at most this many bytes of them.
constexpr int64_t kMaxTemporaryBytes = 64 * 1024;

// Bytes of the partial sums of `op`'s outputs at most (rows x lanes f64
// each): a dynamic loop's bound from the output dimension it writes
// (IndexBounds.h; a workgroup's tile of a sequence's rows), or
// kMaxTemporaryBytes + 1 when there is none.
int64_t rowSumTemporaryBound(linalg::GenericOp op, int64_t lanes) {
  unsigned last = op.getNumLoops() - 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t bytes = lanes * 8 * op.getNumDpsInits();
  for (unsigned d = 0; d < last; ++d) {
    int64_t size = ranges[d];
    if (ShapedType::isDynamic(size)) {
      FailureOr<int64_t> bound = failure();
      for (OpOperand &init : op.getDpsInitsMutable()) {
        AffineMap map = op.getMatchingIndexingMap(&init);
        std::optional<unsigned> pos =
            map.getResultPosition(getAffineDimExpr(d, op.getContext()));
        if (pos) {
          bound = dimUpperBound(init.get(), *pos);
          break;
        }
      }
      if (failed(bound)) {
        return kMaxTemporaryBytes + 1;
      }
      size = *bound;
    }
    if (size > kMaxTemporaryBytes) {
      return kMaxTemporaryBytes + 1;
    }
    bytes *= size;
    if (bytes > kMaxTemporaryBytes) {
      return kMaxTemporaryBytes + 1;
    }
  }
  return bytes;
}

// Whether `op` sums along its innermost loop, and only there: every loop
// but the last parallel, the last static and a multiple of `lanes` (two
// of them at least), every input read along it contiguously (its last
// map result that loop, its memref's last stride 1), every output f64
// and written through parallel loops only, and each output's value
// yielded as that output plus something that does not read an output.
bool isSplittableRowSum(linalg::GenericOp op, int64_t lanes) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 2) {
    return false;
  }
  unsigned last = op.getNumLoops() - 1;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < last; ++d) {
    if (iterators[d] != utils::IteratorType::parallel) {
      return false;
    }
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (iterators[last] != utils::IteratorType::reduction ||
      ShapedType::isDynamic(ranges[last]) || ranges[last] % lanes != 0 ||
      ranges[last] < 2 * lanes) {
    return false;
  }
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type || !map.isProjectedPermutation() || map.getNumResults() == 0 ||
        map.getResults().back() != getAffineDimExpr(last, op.getContext()) ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1) {
      return false;
    }
  }
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (!getElementTypeOrSelf(init.get().getType()).isF64() ||
        !map.isProjectedPermutation() || map.isFunctionOfDim(last)) {
      return false;
    }
    BlockArgument acc = op.getMatchingBlockArgument(&init);
    auto add = yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs())
                   .getDefiningOp<arith::AddFOp>();
    if (!acc.hasOneUse() || !add || add->getBlock() != &body ||
        (add.getLhs() != acc && add.getRhs() != acc)) {
      return false;
    }
  }
  // No value but the adds reads an output.
  for (Operation &inner : body.without_terminator()) {
    for (Value operand : inner.getOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (arg && arg.getOwner() == &body &&
          arg.getArgNumber() >= op.getNumDpsInputs() &&
          !isa<arith::AddFOp>(inner)) {
        return false;
      }
    }
  }
  return rowSumTemporaryBound(op, lanes) <= kMaxTemporaryBytes;
}

// Rewrites a row sum (isSplittableRowSum) as its per-lane partial sums and
// their sum.
void splitRowSum(IRRewriter &rewriter, linalg::GenericOp op, int64_t lanes) {
  MLIRContext *context = op.getContext();
  Location loc = op.getLoc();
  unsigned loops = op.getNumLoops();
  unsigned last = loops - 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  rewriter.setInsertionPoint(op);
  // The new loops: the parallel ones, the steps (d_last), the lanes.
  AffineExpr step = getAffineDimExpr(last, context);
  AffineExpr lane = getAffineDimExpr(loops, context);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = cast<MemRefType>(input->get().getType());
    int64_t rank = type.getRank();
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      groups.push_back({d});
    }
    groups.push_back({rank - 1, rank});
    SmallVector<int64_t> shape(type.getShape());
    shape.back() /= lanes;
    shape.push_back(lanes);
    inputs.push_back(memref::ExpandShapeOp::create(rewriter, loc, shape,
                                                   input->get(), groups));
    SmallVector<AffineExpr> results(
        op.getMatchingIndexingMap(input).getResults());
    results.back() = step;
    results.push_back(lane);
    maps.push_back(AffineMap::get(loops + 1, 0, results, context));
  }
  // Per output, its partial sums: the parallel loops' ranges, then lanes.
  SmallVector<int64_t> partialShape(ranges.begin(), ranges.begin() + last);
  partialShape.push_back(lanes);
  auto partialType = MemRefType::get(partialShape, rewriter.getF64Type());
  // A dynamic parallel loop (a sequence's rows) sizes the temporary at run
  // time, within its bound (rowSumTemporaryBound).
  SmallVector<Value> dynamicSizes;
  SmallVector<Range, 4> loopRanges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  for (unsigned d = 0; d < last; ++d) {
    if (ShapedType::isDynamic(ranges[d])) {
      dynamicSizes.push_back(
          getValueOrCreateConstantIndexOp(rewriter, loc, loopRanges[d].size));
    }
  }
  SmallVector<AffineExpr> partialResults;
  for (unsigned d = 0; d < last; ++d) {
    partialResults.push_back(getAffineDimExpr(d, context));
  }
  partialResults.push_back(lane);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF64FloatAttr(0.0));
  SmallVector<Value> partials;
  for (unsigned i = 0, e = op.getNumDpsInits(); i < e; ++i) {
    Value partial =
        memref::AllocaOp::create(rewriter, loc, partialType, dynamicSizes);
    linalg::FillOp::create(rewriter, loc, zero, partial);
    partials.push_back(partial);
    maps.push_back(AffineMap::get(loops + 1, 0, partialResults, context));
  }
  SmallVector<utils::IteratorType> iterators(last,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  iterators.push_back(utils::IteratorType::parallel);
  auto split = linalg::GenericOp::create(rewriter, loc, TypeRange{}, inputs,
                                         partials, maps, iterators);
  rewriter.cloneRegionBefore(op.getRegion(), split.getRegion(),
                             split.getRegion().end());
  // Each row's lanes into its output.
  SmallVector<AffineMap> sumMaps;
  AffineMap lanesMap = AffineMap::getMultiDimIdentityMap(loops, context);
  for (unsigned i = 0, e = op.getNumDpsInits(); i < e; ++i) {
    sumMaps.push_back(lanesMap);
  }
  for (OpOperand &init : op.getDpsInitsMutable()) {
    // The output's map over the parallel loops: the same in the new loop
    // space, where loop `last` is the lanes.
    sumMaps.push_back(op.getMatchingIndexingMap(&init));
  }
  SmallVector<utils::IteratorType> sumIterators(last,
                                                utils::IteratorType::parallel);
  sumIterators.push_back(utils::IteratorType::reduction);
  linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, partials, op.getDpsInits(), sumMaps,
      sumIterators, [&](OpBuilder &b, Location l, ValueRange args) {
        unsigned n = partials.size();
        SmallVector<Value> sums;
        for (unsigned i = 0; i < n; ++i) {
          sums.push_back(arith::AddFOp::create(b, l, args[n + i], args[i]));
        }
        linalg::YieldOp::create(b, l, sums);
      });
  rewriter.eraseOp(op);
}

} // namespace

void splitRowSums(Operation *root, int64_t nativeVectorBytes) {
  int64_t lanes = std::max<int64_t>(2, nativeVectorBytes / 8);
  SmallVector<linalg::GenericOp> sums;
  root->walk([&](linalg::GenericOp op) {
    if (isSplittableRowSum(op, lanes)) {
      sums.push_back(op);
    }
  });
  IRRewriter rewriter(root->getContext());
  for (linalg::GenericOp op : sums) {
    splitRowSum(rewriter, op, lanes);
  }
}

} // namespace mlir::strata::llvmcpu
