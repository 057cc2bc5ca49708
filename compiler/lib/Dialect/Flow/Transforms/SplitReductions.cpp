// SplitReductions.cpp - float sums (and f32 extremes) as a tree of partial
// results, f16 sums in f32 (SplitReductions.h).
//
// A sum of K values accumulated one after the other loses about K * eps of
// relative accuracy in the worst case, and an f16 accumulator stops growing
// once the addends fall below half its ulp (a sum of many small f16 values
// sticks). Here a long sum x[..., K] is computed as
//
//   partial[..., g, v] = sum_c x[..., g, c, v]      (x viewed as G x C x V)
//   result[...]        = init + sum_{g, v} partial[..., g, v]
//
// V = 16 lanes are contiguous (one or two vectors), C steps of each lane
// add a few hundred values, and the G groups are parallel loops, so the
// code generator spreads them over workgroups: the sum gets faster as well
// as more accurate. f16 sums accumulate in f32 throughout. An f32 minimum
// or maximum (arith.minimumf / maximumf: exact, NaN-propagating, so any
// order gives the same bits) is split the same way, its partials starting
// at +inf / -inf: DynamicQuantizeLinear's range of a whole activation. An
// f32 op with several such results over one input (that range's minimum
// and maximum in one pass) has its partials computed by one op, which reads
// the input once; each result's partials are then summed on their own.

#include "SplitReductions.h"

#include <limits>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace {

/// Lanes of partial sums: contiguous, one AVX-512 vector of f32.
constexpr int64_t kLanes = 16;
/// Sums shorter than this stay one op (unless f16 widens them).
constexpr int64_t kMinSplitSize = 4096;
/// Each lane of a group adds at least this many values...
constexpr int64_t kMinStepsPerLane = 256;
/// ...and there are at most this many groups per output element.
constexpr int64_t kMaxGroups = 256;

/// A float sum (or f32 extreme): one input, one reduction loop, and for
/// each init a result whose body value is addf (minimumf, maximumf) of a
/// contribution and that init's acc, with acc used only there. Several
/// results only in f32 (nothing to widen).
struct FloatSum {
  linalg::LinalgOp op;
  SmallVector<Operation *> combiners;
  SmallVector<Value> contributions; // in the body; from the input alone
};

/// The combiner's value for no values: 0 for a sum, +inf for a minimum,
/// -inf for a maximum.
double identityOf(Operation *combiner) {
  if (isa<arith::MinimumFOp>(combiner)) {
    return std::numeric_limits<double>::infinity();
  }
  if (isa<arith::MaximumFOp>(combiner)) {
    return -std::numeric_limits<double>::infinity();
  }
  return 0.0;
}

/// `combiner`'s kind applied to lhs and rhs.
Value combine(OpBuilder &b, Location loc, Operation *combiner, Value lhs,
              Value rhs) {
  if (isa<arith::MinimumFOp>(combiner)) {
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  }
  if (isa<arith::MaximumFOp>(combiner)) {
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  }
  return arith::AddFOp::create(b, loc, lhs, rhs);
}

std::optional<FloatSum> matchFloatSum(linalg::LinalgOp op) {
  unsigned results = op->getNumResults();
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      results == 0 || op.getNumDpsInits() != results ||
      op.getNumReductionLoops() != 1 ||
      !isa<linalg::GenericOp, linalg::ReduceOp>(op.getOperation())) {
    return std::nullopt;
  }
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || !isa<FloatType>(resultType.getElementType()) ||
      !(resultType.getElementType().isF16() ||
        resultType.getElementType().isF32()) ||
      (results > 1 && !resultType.getElementType().isF32())) {
    return std::nullopt;
  }
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (unsigned i = 1; i < results; ++i) {
    if (op->getResult(i).getType() != resultType ||
        op.getMatchingIndexingMap(op.getDpsInitOperand(i)) != outputMap) {
      return std::nullopt;
    }
  }
  Block *body = op.getBlock();
  if (body->getNumArguments() != 1 + results) {
    return std::nullopt;
  }
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  FloatSum sum{op, {}, {}};
  for (unsigned i = 0; i < results; ++i) {
    // Minimum and maximum (NaN-propagating) are exact in any order: split
    // in f32 alone (an f16 extreme needs no wider accumulator).
    Operation *add = yield.getValues()[i].getDefiningOp();
    BlockArgument acc = body->getArgument(1 + i);
    bool extreme = isa_and_nonnull<arith::MinimumFOp, arith::MaximumFOp>(add);
    if (!add || !(isa<arith::AddFOp>(add) || extreme) ||
        (extreme && !resultType.getElementType().isF32()) || !acc.hasOneUse() ||
        add->getBlock() != body) {
      return std::nullopt;
    }
    Value contribution = add->getOperand(0) == acc   ? add->getOperand(1)
                         : add->getOperand(1) == acc ? add->getOperand(0)
                                                     : Value();
    if (!contribution || !add->getResult(0).hasOneUse() ||
        llvm::is_contained(sum.combiners, add) ||
        llvm::any_of(body->getArguments().drop_front(),
                     [&](Value arg) { return arg == contribution; })) {
      return std::nullopt;
    }
    sum.combiners.push_back(add);
    sum.contributions.push_back(contribution);
  }
  return sum;
}

/// Builds the sum's body for a new op whose accumulators have `accType`:
/// the original ops that compute the contributions, widened to accType,
/// each combined with its accumulator.
void buildSumBody(OpBuilder &b, Location loc, ValueRange args, FloatSum sum,
                  Type accType) {
  Block *body = sum.op.getBlock();
  IRMapping mapping;
  mapping.map(body->getArgument(0), args[0]);
  for (Operation &op : body->without_terminator()) {
    if (!llvm::is_contained(sum.combiners, &op)) {
      b.clone(op, mapping);
    }
  }
  SmallVector<Value> results;
  for (auto [i, combiner] : llvm::enumerate(sum.combiners)) {
    Value value = mapping.lookupOrDefault(sum.contributions[i]);
    if (value.getType() != accType) {
      value = arith::ExtFOp::create(b, loc, accType, value);
    }
    results.push_back(combine(b, loc, combiner, value, args[1 + i]));
  }
  linalg::YieldOp::create(b, loc, results);
}

/// A tensor of `type` filled with `value`.
Value filled(OpBuilder &b, Location loc, RankedTensorType type,
             ArrayRef<OpFoldResult> sizes, double value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  Value constant = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type.getElementType(), value));
  return linalg::FillOp::create(b, loc, constant, empty).getResult(0);
}

/// `init` (the original op's accumulator) in `accType`: a fill of a
/// constant is refilled, anything else is extended elementwise.
Value widenInit(OpBuilder &b, Location loc, Value init, Type accType) {
  auto type = cast<RankedTensorType>(init.getType());
  if (type.getElementType() == accType) {
    return init;
  }
  auto wideType = type.clone(accType);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, init);
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    FloatAttr value;
    if (matchPattern(fill.getInputs()[0], m_Constant(&value))) {
      return filled(b, loc, wideType, sizes, value.getValueAsDouble());
    }
  }
  Value empty = tensor::EmptyOp::create(b, loc, sizes, accType);
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{wideType}, ValueRange{init}, ValueRange{empty},
             ArrayRef<AffineMap>{identity, identity}, parallel,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value wide = arith::ExtFOp::create(nb, nloc, accType, args[0]);
               linalg::YieldOp::create(nb, nloc, wide);
             })
      .getResult(0);
}

/// `value` (f32) rounded to `type`'s element type, elementwise.
Value narrow(OpBuilder &b, Location loc, Value value, RankedTensorType type,
             ArrayRef<OpFoldResult> sizes) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{value}, ValueRange{empty},
             ArrayRef<AffineMap>{identity, identity}, parallel,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value n = arith::TruncFOp::create(
                   nb, nloc, type.getElementType(), args[0]);
               linalg::YieldOp::create(nb, nloc, n);
             })
      .getResult(0);
}

/// Whether the sum runs over the input's last dimension, contiguous and
/// static, and is long enough to split: the input is read as it is laid
/// out (identity map) and the result keeps the other dimensions in order.
bool isSplittable(linalg::LinalgOp op, int64_t &size) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    return false;
  }
  unsigned n = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators[n - 1] != utils::IteratorType::reduction) {
    return false;
  }
  AffineMap inputMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<AffineExpr> expected;
  for (unsigned d = 0; d + 1 < n; ++d) {
    expected.push_back(getAffineDimExpr(d, op.getContext()));
  }
  if (!inputMap.isIdentity() ||
      outputMap != AffineMap::get(n, 0, expected, op.getContext())) {
    return false;
  }
  size = ranges[n - 1];
  return size >= kMinSplitSize && size % kLanes == 0;
}

/// The number of groups for a sum of `size` values: a divisor of
/// size / kLanes leaving each lane at least kMinStepsPerLane values.
int64_t chooseGroups(int64_t size) {
  int64_t perLane = size / kLanes;
  int64_t groups =
      std::min(kMaxGroups, std::max<int64_t>(1, perLane / kMinStepsPerLane));
  while (perLane % groups != 0) {
    --groups;
  }
  return groups;
}

void rewriteSum(FloatSum sum) {
  linalg::LinalgOp op = sum.op;
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  unsigned results = sum.combiners.size();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type accType = resultType.getElementType().isF16()
                     ? Type(b.getF32Type())
                     : resultType.getElementType();
  Value input = op.getDpsInputOperand(0)->get();
  SmallVector<Value> accInits;
  for (unsigned i = 0; i < results; ++i) {
    accInits.push_back(
        widenInit(b, loc, op.getDpsInitOperand(i)->get(), accType));
  }
  SmallVector<OpFoldResult> resultSizes =
      tensor::getMixedSizes(b, loc, op.getDpsInitOperand(0)->get());
  SmallVector<Value> values;
  SmallVector<linalg::GenericOp> finalOps;

  int64_t size = 0;
  if (isSplittable(op, size)) {
    unsigned n = op.getNumLoops();
    int64_t groups = chooseGroups(size);
    int64_t steps = size / kLanes / groups;
    auto inputType = cast<RankedTensorType>(input.getType());
    // x[..., K] viewed as x[..., G, C, V].
    SmallVector<int64_t> shape(inputType.getShape().drop_back());
    SmallVector<ReassociationIndices> reassociation;
    for (unsigned d = 0; d + 1 < n; ++d) {
      reassociation.push_back({static_cast<int64_t>(d)});
    }
    reassociation.push_back({n - 1, n, n + 1});
    shape.append({groups, steps, kLanes});
    Value expanded = tensor::ExpandShapeOp::create(
        b, loc, inputType.clone(shape), input, reassociation);
    // partial[..., g, v] = sum_c x[..., g, c, v], for every result in one
    // op (one pass over x).
    SmallVector<int64_t> partialShape(inputType.getShape().drop_back());
    partialShape.append({groups, kLanes});
    auto partialType = RankedTensorType::get(partialShape, accType);
    SmallVector<OpFoldResult> partialSizes;
    for (int64_t d : partialShape) {
      partialSizes.push_back(b.getIndexAttr(d));
    }
    SmallVector<Value> identities;
    for (Operation *combiner : sum.combiners) {
      identities.push_back(
          filled(b, loc, partialType, partialSizes, identityOf(combiner)));
    }
    SmallVector<AffineExpr> partialExprs;
    for (unsigned d = 0; d + 1 < n; ++d) {
      partialExprs.push_back(getAffineDimExpr(d, context));
    }
    partialExprs.push_back(getAffineDimExpr(n - 1, context));
    partialExprs.push_back(getAffineDimExpr(n + 1, context));
    SmallVector<utils::IteratorType> iterators(n + 2,
                                               utils::IteratorType::parallel);
    iterators[n] = utils::IteratorType::reduction;
    SmallVector<AffineMap> partialMaps = {b.getMultiDimIdentityMap(n + 2)};
    partialMaps.append(results,
                       AffineMap::get(n + 2, 0, partialExprs, context));
    auto partialOp = linalg::GenericOp::create(
        b, loc, SmallVector<Type>(results, partialType), ValueRange{expanded},
        identities, partialMaps, iterators,
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          buildSumBody(nb, nloc, args, sum, accType);
        });
    // result[...] = init + sum_k partial[..., k] over k = (g, v), a view
    // of the partials as one row each: itself split in turn when long.
    SmallVector<ReassociationIndices> collapse;
    for (unsigned d = 0; d + 1 < n; ++d) {
      collapse.push_back({static_cast<int64_t>(d)});
    }
    collapse.push_back({n - 1, n});
    SmallVector<AffineExpr> resultExprs(partialExprs.begin(),
                                        partialExprs.end() - 2);
    SmallVector<utils::IteratorType> finalIterators(
        n, utils::IteratorType::parallel);
    finalIterators[n - 1] = utils::IteratorType::reduction;
    for (unsigned i = 0; i < results; ++i) {
      Value rows = tensor::CollapseShapeOp::create(
          b, loc, partialOp->getResult(i), collapse);
      Operation *combiner = sum.combiners[i];
      auto finalOp = linalg::GenericOp::create(
          b, loc, TypeRange{resultType.clone(accType)}, ValueRange{rows},
          ValueRange{accInits[i]},
          ArrayRef<AffineMap>{b.getMultiDimIdentityMap(n),
                              AffineMap::get(n, 0, resultExprs, context)},
          finalIterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value s = combine(nb, nloc, combiner, args[0], args[1]);
            linalg::YieldOp::create(nb, nloc, s);
          });
      finalOps.push_back(finalOp);
      values.push_back(finalOp->getResult(0));
    }
  } else {
    // Only widened (one f16 result): the same loops with an f32
    // accumulator.
    values.push_back(linalg::GenericOp::create(
                         b, loc, TypeRange{resultType.clone(accType)},
                         ValueRange{input}, accInits, op.getIndexingMapsArray(),
                         op.getIteratorTypesArray(),
                         [&](OpBuilder &nb, Location nloc, ValueRange args) {
                           buildSumBody(nb, nloc, args, sum, accType);
                         })
                         .getResult(0));
  }
  for (unsigned i = 0; i < results; ++i) {
    Value result = values[i];
    if (accType != resultType.getElementType()) {
      result = narrow(b, loc, result, resultType, resultSizes);
    }
    op->getResult(i).replaceAllUsesWith(result);
  }
  op->erase();
  // The sum of each result's partials, when long, is split the same way.
  for (linalg::GenericOp finalOp : finalOps) {
    int64_t finalSize = 0;
    if (isSplittable(finalOp, finalSize)) {
      if (std::optional<FloatSum> again = matchFloatSum(finalOp)) {
        rewriteSum(*again);
      }
    }
  }
}

} // namespace

void mlir::strata::flow::splitReductions(ModuleOp module) {
  SmallVector<FloatSum> sums;
  module.walk([&](linalg::LinalgOp op) {
    std::optional<FloatSum> sum = matchFloatSum(op);
    if (!sum) {
      return;
    }
    int64_t size = 0;
    bool widen =
        cast<ShapedType>(op->getResult(0).getType()).getElementType().isF16();
    if (widen || isSplittable(op, size)) {
      sums.push_back(*sum);
    }
  });
  for (FloatSum &sum : sums) {
    rewriteSum(sum);
  }
}
