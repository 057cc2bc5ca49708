// DataDependentOps.cpp - ONNX op types whose result's shape depends on the
// data: NonZero, Compress with a run-time condition, Unique and
// NonMaxSuppression. Each is a count kernel, a read-back of the count on
// the host (tensor.extract of a kernel's result: the host waits for that
// kernel, a sync point the stream IR shows as an await), a result
// allocated with that size, and a fill kernel. Selections go through an
// inclusive prefix count computed by kernels (a Hillis-Steele scan) and a
// binary search per result element, so no host loop walks the elements.

#include "Lowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value i64Const(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

Value toI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value toIndex(OpBuilder &b, Location loc, Value value) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

/// One Hillis-Steele step over `previous` (1-D i64 of `size` elements):
/// each element plus the one `step` before it. It reads `previous` only
/// through tensor.extract, so elementwise fusion leaves the steps apart (a
/// fused chain would recompute every earlier step per element).
Value scanStep(OpBuilder &b, Location loc, Value previous, OpFoldResult size,
               Value step) {
  auto type = RankedTensorType::get(staticShapeOf({size}), b.getI64Type());
  return generic(
      b, loc, {}, {}, type,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value i = linalg::IndexOp::create(nb, l, 0);
        Value v = tensor::ExtractOp::create(nb, l, previous, i);
        Value has =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::uge, i, step);
        Value at = arith::SelectOp::create(
            nb, l, has, arith::SubIOp::create(nb, l, i, step),
            indexConst(nb, l, 0));
        Value before = tensor::ExtractOp::create(nb, l, previous, at);
        before =
            arith::SelectOp::create(nb, l, has, before, i64Const(nb, l, 0));
        return arith::AddIOp::create(nb, l, v, before);
      },
      {size});
}

/// Inclusive prefix sums of `x`, a 1-D i64 tensor of n elements, by
/// Hillis-Steele: ceil(log2 n) kernels, step s adding to each element the
/// one s before it (n log n work, each step parallel). A static n unrolls
/// the steps; a dynamic one runs them in an scf.while on the host, one
/// dispatch per step.
Value inclusiveScan(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  if (!type.isDynamicDim(0)) {
    int64_t n = type.getDimSize(0);
    for (int64_t step = 1; step < n; step *= 2) {
      x = scanStep(b, loc, x, b.getIndexAttr(n), indexConst(b, loc, step));
    }
    return x;
  }
  Value size = tensor::DimOp::create(b, loc, x, 0);
  Type indexType = b.getIndexType();
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{type, indexType}, ValueRange{x, indexConst(b, loc, 1)},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value more = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                           args[1], size);
        scf::ConditionOp::create(nb, l, more, args);
      },
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value next = scanStep(nb, l, args[0], size, args[1]);
        Value step =
            arith::MulIOp::create(nb, l, args[1], indexConst(nb, l, 2));
        scf::YieldOp::create(nb, l, ValueRange{next, step});
      });
  return loop->getResult(0);
}

/// The last element of `inclusive` (a 1-D i64 prefix count) read back on
/// the host as an index: the count of a selection (0 when it is empty).
/// The host waits here for the kernels that made it.
OpFoldResult readCount(OpBuilder &b, Location loc, Value inclusive) {
  auto type = cast<RankedTensorType>(inclusive.getType());
  if (!type.isDynamicDim(0)) {
    int64_t n = type.getDimSize(0);
    if (n == 0) {
      return b.getIndexAttr(0);
    }
    Value last =
        tensor::ExtractOp::create(b, loc, inclusive, indexConst(b, loc, n - 1));
    return simplifyHostScalar(toIndex(b, loc, last));
  }
  Value size = tensor::DimOp::create(b, loc, inclusive, 0);
  Value some = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, size,
                                     indexConst(b, loc, 0));
  // The result type comes from the yields.
  auto read = scf::IfOp::create(
      b, loc, some,
      [&](OpBuilder &nb, Location l) {
        Value last = tensor::ExtractOp::create(
            nb, l, inclusive,
            arith::SubIOp::create(nb, l, size, indexConst(nb, l, 1))
                .getResult());
        scf::YieldOp::create(nb, l, last);
      },
      [&](OpBuilder &nb, Location l) {
        scf::YieldOp::create(nb, l, i64Const(nb, l, 0));
      });
  return toIndex(b, loc, read->getResult(0));
}

/// Most elements a selection over a dynamic length counts: the binary
/// search unrolls a step per bit.
constexpr int64_t kMaxDynamicSelection = int64_t(1) << 40;

/// For each k in [0, count): the position of the (k+1)-th selected element,
/// given `inclusive`, the inclusive prefix count of the selection (1-D i64
/// of static length n, non-decreasing): the number of elements whose count
/// is at most k, found by a branchless binary search of floor(log2 n) + 1
/// steps per result element. A 1-D i64 tensor of `count` elements.
Value selectedPositions(OpBuilder &b, Location loc, Value inclusive,
                        OpFoldResult count) {
  auto inclusiveType = cast<RankedTensorType>(inclusive.getType());
  // A dynamic length is below kMaxDynamicSelection (its callers check).
  int64_t n = inclusiveType.isDynamicDim(0) ? kMaxDynamicSelection - 1
                                            : inclusiveType.getDimSize(0);
  Value hostSize = inclusiveType.isDynamicDim(0)
                       ? tensor::DimOp::create(b, loc, inclusive, 0).getResult()
                       : Value();
  auto type = RankedTensorType::get(staticShapeOf({count}), b.getI64Type());
  return generic(
      b, loc, {}, {}, type,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value k = toI64(nb, l, linalg::IndexOp::create(nb, l, 0));
        Value position = indexConst(nb, l, 0);
        Value size = hostSize ? hostSize : indexConst(nb, l, n);
        for (int64_t step = int64_t(llvm::bit_floor(uint64_t(n))); step >= 1;
             step /= 2) {
          Value candidate =
              arith::AddIOp::create(nb, l, position, indexConst(nb, l, step));
          Value inside = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ule,
                                               candidate, size);
          Value at = arith::SelectOp::create(
              nb, l, inside,
              arith::SubIOp::create(nb, l, candidate, indexConst(nb, l, 1)),
              indexConst(nb, l, 0));
          Value counted = tensor::ExtractOp::create(nb, l, inclusive, at);
          Value below = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sle,
                                              counted, k);
          position = arith::SelectOp::create(
              nb, l, arith::AndIOp::create(nb, l, inside, below), candidate,
              position);
        }
        return toI64(nb, l, position);
      },
      {count});
}

/// Whether a scalar `v` of `element` is not zero (NaN is not zero).
Value isNonZero(OpBuilder &b, Location loc, Value v, Type element) {
  if (isFloat(element)) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                 scalar(b, loc, element, 0));
  }
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                               scalar(b, loc, element, 0));
}

/// 1 where `mask` (i1 or any number, 1-D) selects, else 0, as i64.
Value countsOf(OpBuilder &b, Location loc, Value mask) {
  auto type = cast<RankedTensorType>(mask.getType());
  Type element = type.getElementType();
  return generic(b, loc, mask, b.getMultiDimIdentityMap(1),
                 RankedTensorType::get(type.getShape(), b.getI64Type()),
                 [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   return arith::ExtUIOp::create(
                       nb, l, nb.getI64Type(), isNonZero(nb, l, a[0], element));
                 });
}

//===----------------------------------------------------------------------===//
// NonZero, Compress
//===----------------------------------------------------------------------===//

/// NonZero: the indices of the non-zero elements, one row per dimension
/// (rank x count, row-major order of the elements; a scalar counts as one
/// element of a 1-D tensor).
LogicalResult lowerNonZero(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  SmallVector<OpFoldResult> sizes = n.dims(0);
  if (sizes.empty()) {
    sizes.push_back(b.getIndexAttr(1));
  }
  int64_t rank = sizes.size();
  OpFoldResult elements = productOf(b, loc, sizes);
  Value flat;
  if (std::optional<int64_t> known = getConstantIntValue(elements)) {
    flat = reshape(b, loc, n.in(0), {*known});
  } else {
    n.check(compareSizes(b, loc, arith::CmpIPredicate::ult, elements,
                         b.getIndexAttr(kMaxDynamicSelection)),
            "the input has 2^40 elements or more at run time");
    flat = reshapeTo(b, loc, n.in(0), {elements});
  }
  Value inclusive = inclusiveScan(b, loc, countsOf(b, loc, flat));
  OpFoldResult count = readCount(b, loc, inclusive);
  Value positions = selectedPositions(b, loc, inclusive, count);
  // Row-major strides and sizes as i64 scalars (host values where dynamic).
  SmallVector<Value> strides(rank), extents(rank);
  OpFoldResult stride = b.getIndexAttr(1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = toI64(b, loc, indexValueOf(b, loc, stride));
    extents[d] = toI64(b, loc, indexValueOf(b, loc, sizes[d]));
    stride = mulSizes(b, loc, stride, sizes[d]);
  }
  auto resultType = RankedTensorType::get(
      staticShapeOf({b.getIndexAttr(rank), count}), b.getI64Type());
  AffineMap positionMap =
      AffineMap::get(2, 0, {b.getAffineDimExpr(1)}, b.getContext());
  Value result =
      generic(b, loc, positions, positionMap, resultType,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                // Row d: (position / stride[d]) % size[d], chosen by the row.
                Value row = linalg::IndexOp::create(nb, l, 0);
                Value v = i64Const(nb, l, 0);
                for (int64_t d = 0; d < rank; ++d) {
                  Value coordinate = arith::RemSIOp::create(
                      nb, l, arith::DivSIOp::create(nb, l, a[0], strides[d]),
                      extents[d]);
                  Value here =
                      arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                            row, indexConst(nb, l, d));
                  v = arith::SelectOp::create(nb, l, here, coordinate, v);
                }
                return v;
              },
              {b.getIndexAttr(rank), count});
  return n.replace(result);
}

} // namespace

/// Compress with a condition known only at run time: the kept indices along
/// the axis (the condition's first min(its length, the axis' length)
/// values) counted by a scan, the count read back, and a gather of the
/// kept slices.
LogicalResult mlir::strata::onnx::lowerCompressAtRunTime(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Value x = n.in(0);
  int64_t axis = 0;
  std::optional<int64_t> axisAttr = n.intAttr("axis");
  if (axisAttr) {
    FailureOr<int64_t> a = n.axis(*axisAttr, n.rank(0));
    if (failed(a)) {
      return failure();
    }
    axis = *a;
  } else if (n.type(0).hasStaticShape()) {
    x = reshape(b, loc, x, {n.type(0).getNumElements()});
  } else {
    x = reshapeTo(b, loc, x, {productOf(b, loc, n.dims(0))});
  }
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> sizes = dimsOf(b, loc, x);
  Value condition = n.in(1);
  Value selected;
  if (n.type(1).hasStaticShape() && !type.isDynamicDim(axis)) {
    int64_t length = std::min(type.getDimSize(axis), n.shape(1)[0]);
    if (length < n.shape(1)[0]) {
      condition = slice(b, loc, condition, {0}, {length}, {1});
    }
    selected = countsOf(b, loc, condition);
  } else {
    // The condition's values past the axis' length select nothing.
    OpFoldResult length = n.dim(1, 0);
    n.check(compareSizes(b, loc, arith::CmpIPredicate::ult, length,
                         b.getIndexAttr(kMaxDynamicSelection)),
            "the condition has 2^40 values or more at run time");
    Value axisSize = indexValueOf(b, loc, sizes[axis]);
    selected = generic(b, loc, condition, b.getMultiDimIdentityMap(1),
                       RankedTensorType::get(n.shape(1), b.getI64Type()),
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value inside = arith::CmpIOp::create(
                             nb, l, arith::CmpIPredicate::ult,
                             linalg::IndexOp::create(nb, l, 0), axisSize);
                         return arith::ExtUIOp::create(
                             nb, l, nb.getI64Type(),
                             arith::AndIOp::create(nb, l, inside, a[0]));
                       });
  }
  Value inclusive = inclusiveScan(b, loc, selected);
  OpFoldResult count = readCount(b, loc, inclusive);
  Value positions = selectedPositions(b, loc, inclusive, count);
  sizes[axis] = count;
  auto resultType =
      RankedTensorType::get(staticShapeOf(sizes), type.getElementType());
  AffineMap positionMap = AffineMap::get(
      type.getRank(), 0, {b.getAffineDimExpr(axis)}, b.getContext());
  Value result = generic(
      b, loc, positions, positionMap, resultType,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < type.getRank(); ++d) {
          at.push_back(d == axis
                           ? toIndex(nb, l, a[0])
                           : linalg::IndexOp::create(nb, l, d).getResult());
        }
        return tensor::ExtractOp::create(nb, l, x, at);
      },
      sizes);
  return n.replace(result, {n.isUnsigned(0)});
}

namespace {

//===----------------------------------------------------------------------===//
// Unique
//===----------------------------------------------------------------------===//

/// Most slices Unique compares pairwise along an axis: the first
/// difference of each pair is a kernel's n x n result.
constexpr int64_t kMaxUniqueSlices = 4096;

/// Comparisons of scalars in a total order: NaN equals NaN and is above
/// every number (numpy's unique with equal_nan); integers signed or not.
struct ScalarOrder {
  Type element;
  bool isUnsigned;

  Value same(OpBuilder &b, Location loc, Value x, Value y) const {
    if (!isFloat(element)) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
    }
    Value bothNaN = arith::AndIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y));
    return arith::OrIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y),
        bothNaN);
  }

  /// Whether x comes before y.
  Value less(OpBuilder &b, Location loc, Value x, Value y) const {
    if (!isFloat(element)) {
      bool unsignedOrder = isUnsigned || element.isInteger(1);
      return arith::CmpIOp::create(b, loc,
                                   unsignedOrder ? arith::CmpIPredicate::ult
                                                 : arith::CmpIPredicate::slt,
                                   x, y);
    }
    Value xNumber =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, x, x);
    Value yNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y);
    return arith::OrIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y),
        arith::AndIOp::create(b, loc, xNumber, yNaN));
  }
};

/// Unique: the distinct elements (or slices along `axis`), sorted or in the
/// order of their first occurrence, with the index of each one's first
/// occurrence, each element's index into the result, and the counts. The
/// comparisons are pairwise (kernels quadratic in the number of slices);
/// the count of distinct slices is read back to size the results.
LogicalResult lowerUnique(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  MLIRContext *context = b.getContext();
  RankedTensorType type = n.type(0);
  Type element = type.getElementType();
  ScalarOrder order{element, n.isUnsigned(0)};
  bool sorted = n.intAttr("sorted", 1) != 0;
  std::optional<int64_t> axisAttr = n.intAttr("axis");
  int64_t axis = 0;
  SmallVector<int64_t> shape(type.getShape());
  int64_t before = 1, slices = 0, after = 1;
  if (axisAttr) {
    FailureOr<int64_t> a = n.axis(*axisAttr, n.rank(0));
    if (failed(a)) {
      return failure();
    }
    axis = *a;
    for (int64_t d = 0; d < axis; ++d) {
      before *= shape[d];
    }
    for (int64_t d = axis + 1; d < type.getRank(); ++d) {
      after *= shape[d];
    }
    slices = shape[axis];
  } else {
    slices = type.getNumElements();
    shape = {slices};
  }
  int64_t width = before * after;
  if (width != 1 && slices > kMaxUniqueSlices) {
    return n.fail("Unique along an axis compares " + llvm::Twine(slices) +
                  " slices pairwise; at most " + llvm::Twine(kMaxUniqueSlices) +
                  " are supported");
  }
  Type i64 = b.getI64Type();
  // The input as [before, slices, after]: slice i is x3[:, i, :].
  Value x3 = reshape(b, loc, n.in(0), {before, slices, after});
  if (slices == 0 || width == 0) {
    // Nothing to compare: every result has as many elements as the input
    // (none, or slices without elements, which are all one slice).
    if (slices != 0) {
      return n.fail("Unique of slices without elements is not supported");
    }
    auto empty = [&](ArrayRef<int64_t> s, Type t) -> Value {
      return tensor::EmptyOp::create(b, loc, s, t);
    };
    SmallVector<Value> results = {empty(shape, element), empty({0}, i64),
                                  empty({0}, i64), empty({0}, i64)};
    results.resize(n.numOutputs());
    return n.replace(results, {n.isUnsigned(0)});
  }

  // The first element where slices i and j differ (`width` where none):
  // loops (i, j) parallel, (a, c) over the slice's elements reduced.
  auto dim = [&](unsigned d) { return b.getAffineDimExpr(d); };
  Value firstDifference;
  if (width != 1) {
    auto mapOf = [&](ArrayRef<AffineExpr> exprs) {
      return AffineMap::get(4, 0, exprs, context);
    };
    Value init = filled(b, loc, {slices, slices}, scalar(b, loc, i64, width));
    firstDifference =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{x3, x3},
            ValueRange{init},
            {mapOf({dim(2), dim(0), dim(3)}), mapOf({dim(2), dim(1), dim(3)}),
             mapOf({dim(0), dim(1)})},
            {utils::IteratorType::parallel, utils::IteratorType::parallel,
             utils::IteratorType::reduction, utils::IteratorType::reduction},
            [&](OpBuilder &nb, Location l, ValueRange args) {
              Value e = arith::AddIOp::create(
                  nb, l,
                  arith::MulIOp::create(nb, l,
                                        linalg::IndexOp::create(nb, l, 2),
                                        indexConst(nb, l, after)),
                  linalg::IndexOp::create(nb, l, 3));
              Value differ = arith::XOrIOp::create(
                  nb, l, order.same(nb, l, args[0], args[1]),
                  arith::ConstantIntOp::create(nb, l, 1, 1));
              Value candidate = arith::SelectOp::create(
                  nb, l, differ, toI64(nb, l, e), i64Const(nb, l, width));
              linalg::YieldOp::create(
                  nb, l,
                  ValueRange{arith::MinSIOp::create(nb, l, args[2], candidate)
                                 .getResult()});
            })
            ->getResult(0);
  }
  Value flat = width == 1 ? reshape(b, loc, x3, {slices}) : Value();
  // Pairwise generics over (i, j): the inputs that let a body compare
  // slice j with slice i, their maps, and the comparison.
  auto pairInputs = [&](SmallVectorImpl<Value> &inputs,
                        SmallVectorImpl<AffineMap> &maps) {
    if (width == 1) {
      inputs.append({flat, flat});
      maps.push_back(AffineMap::get(2, 0, {dim(0)}, context));
      maps.push_back(AffineMap::get(2, 0, {dim(1)}, context));
    } else {
      inputs.push_back(firstDifference);
      maps.push_back(AffineMap::get(2, 0, {dim(0), dim(1)}, context));
    }
  };
  // (same, j before i) from the body's first pair arguments.
  auto comparePair = [&](OpBuilder &nb, Location l,
                         ValueRange args) -> std::pair<Value, Value> {
    if (width == 1) {
      return {order.same(nb, l, args[1], args[0]),
              order.less(nb, l, args[1], args[0])};
    }
    Value f = args[0];
    Value same = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, f,
                                       i64Const(nb, l, width));
    Value e = toIndex(
        nb, l, arith::SelectOp::create(nb, l, same, i64Const(nb, l, 0), f));
    Value a = arith::DivUIOp::create(nb, l, e, indexConst(nb, l, after));
    Value c = arith::RemUIOp::create(nb, l, e, indexConst(nb, l, after));
    Value xi = tensor::ExtractOp::create(
        nb, l, x3, ValueRange{a, linalg::IndexOp::create(nb, l, 0), c});
    Value xj = tensor::ExtractOp::create(
        nb, l, x3, ValueRange{a, linalg::IndexOp::create(nb, l, 1), c});
    Value less = arith::AndIOp::create(
        nb, l,
        arith::XOrIOp::create(nb, l, same,
                              arith::ConstantIntOp::create(nb, l, 1, 1)),
        order.less(nb, l, xj, xi));
    return {same, less};
  };
  SmallVector<utils::IteratorType> pairIterators = {
      utils::IteratorType::parallel, utils::IteratorType::reduction};
  AffineMap iMap = AffineMap::get(2, 0, {dim(0)}, context);
  AffineMap jMap = AffineMap::get(2, 0, {dim(1)}, context);
  // A pairwise reduction into a [slices] i64 vector from `init`.
  auto pairReduce = [&](ValueRange extraInputs, ArrayRef<AffineMap> extraMaps,
                        int64_t init,
                        function_ref<Value(OpBuilder &, Location, Value, Value,
                                           ValueRange, Value)>
                            combine) -> Value {
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    pairInputs(inputs, maps);
    unsigned pairCount = inputs.size();
    inputs.append(extraInputs.begin(), extraInputs.end());
    maps.append(extraMaps.begin(), extraMaps.end());
    maps.push_back(iMap);
    Value out = filled(b, loc, {slices}, scalar(b, loc, i64, init));
    return linalg::GenericOp::create(
               b, loc, TypeRange{out.getType()}, inputs, ValueRange{out}, maps,
               pairIterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 auto [same, less] =
                     comparePair(nb, l, args.take_front(pairCount));
                 Value acc = args.back();
                 linalg::YieldOp::create(
                     nb, l,
                     combine(nb, l, same, less,
                             args.drop_front(pairCount).drop_back(), acc));
               })
        ->getResult(0);
  };
  // first[i]: 1 where no earlier slice equals slice i.
  Value first =
      pairReduce({}, {}, 1,
                 [&](OpBuilder &nb, Location l, Value same, Value, ValueRange,
                     Value acc) -> Value {
                   Value earlier =
                       arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                             linalg::IndexOp::create(nb, l, 1),
                                             linalg::IndexOp::create(nb, l, 0));
                   Value repeated = arith::AndIOp::create(nb, l, same, earlier);
                   return arith::SelectOp::create(nb, l, repeated,
                                                  i64Const(nb, l, 0), acc);
                 });
  // inverse[i]: the index of slice i's value among the distinct ones.
  Value inverse;
  if (sorted) {
    // The distinct slices that sort below slice i.
    inverse = pairReduce(
        first, jMap, 0,
        [&](OpBuilder &nb, Location l, Value, Value less, ValueRange extra,
            Value acc) -> Value {
          Value counted = arith::AndIOp::create(
              nb, l, less,
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, extra[0],
                                    i64Const(nb, l, 0)));
          return arith::AddIOp::create(
              nb, l, acc,
              arith::ExtUIOp::create(nb, l, nb.getI64Type(), counted));
        });
  } else {
    // The first occurrence of slice i's value, then the distinct slices
    // that occur before it.
    Value representative = pairReduce(
        {}, {}, slices,
        [&](OpBuilder &nb, Location l, Value same, Value, ValueRange,
            Value acc) -> Value {
          Value j = toI64(nb, l, linalg::IndexOp::create(nb, l, 1));
          return arith::MinSIOp::create(
              nb, l, acc,
              arith::SelectOp::create(nb, l, same, j, i64Const(nb, l, slices)));
        });
    Value out = filled(b, loc, {slices}, scalar(b, loc, i64, 0));
    inverse =
        linalg::GenericOp::create(
            b, loc, TypeRange{out.getType()}, ValueRange{first, representative},
            ValueRange{out}, {jMap, iMap, iMap}, pairIterators,
            [&](OpBuilder &nb, Location l, ValueRange args) {
              Value j = toI64(nb, l, linalg::IndexOp::create(nb, l, 1));
              Value counted = arith::AndIOp::create(
                  nb, l,
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne,
                                        args[0], i64Const(nb, l, 0)),
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, j,
                                        args[1]));
              linalg::YieldOp::create(
                  nb, l,
                  ValueRange{arith::AddIOp::create(
                                 nb, l, args[2],
                                 arith::ExtUIOp::create(nb, l, nb.getI64Type(),
                                                        counted))
                                 .getResult()});
            })
            ->getResult(0);
  }
  // The count of distinct slices, read back.
  OpFoldResult count = readCount(b, loc, inclusiveScan(b, loc, first));
  SmallVector<utils::IteratorType> pickIterators = pairIterators;
  AffineMap kMap = iMap;
  // indices[k]: the first occurrence of distinct value k.
  Value indicesInit = filledTo(b, loc, {count}, scalar(b, loc, i64, 0));
  Value indices =
      linalg::GenericOp::create(
          b, loc, TypeRange{indicesInit.getType()}, ValueRange{first, inverse},
          ValueRange{indicesInit}, {jMap, jMap, kMap}, pickIterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value k = toI64(nb, l, linalg::IndexOp::create(nb, l, 0));
            Value j = toI64(nb, l, linalg::IndexOp::create(nb, l, 1));
            Value hit = arith::AndIOp::create(
                nb, l,
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, args[0],
                                      i64Const(nb, l, 0)),
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, args[1],
                                      k));
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::SelectOp::create(nb, l, hit, j, args[2])
                               .getResult()});
          })
          ->getResult(0);
  // counts[k]: the slices whose value is distinct value k.
  Value countsInit = filledTo(b, loc, {count}, scalar(b, loc, i64, 0));
  Value counts =
      linalg::GenericOp::create(
          b, loc, TypeRange{countsInit.getType()}, ValueRange{inverse},
          ValueRange{countsInit}, {jMap, kMap}, pickIterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value k = toI64(nb, l, linalg::IndexOp::create(nb, l, 0));
            Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              args[0], k);
            linalg::YieldOp::create(
                nb, l,
                ValueRange{
                    arith::AddIOp::create(
                        nb, l, args[1],
                        arith::ExtUIOp::create(nb, l, nb.getI64Type(), hit))
                        .getResult()});
          })
          ->getResult(0);
  // Y: the input's shape with `count` slices along the axis, each the
  // first occurrence's.
  int64_t rank = shape.size();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    sizes.push_back(d == axis ? count : b.getIndexAttr(shape[d]));
  }
  Value x = axisAttr ? n.in(0) : flat;
  if (!x) {
    x = reshape(b, loc, n.in(0), {slices});
  }
  Value y = generic(
      b, loc, indices, AffineMap::get(rank, 0, {dim(axis)}, context),
      RankedTensorType::get(staticShapeOf(sizes), element),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          at.push_back(d == axis
                           ? toIndex(nb, l, a[0])
                           : linalg::IndexOp::create(nb, l, d).getResult());
        }
        return tensor::ExtractOp::create(nb, l, x, at);
      },
      sizes);
  SmallVector<Value> results = {y, indices, inverse, counts};
  results.resize(n.numOutputs());
  return n.replace(results, {n.isUnsigned(0)});
}

//===----------------------------------------------------------------------===//
// NonMaxSuppression
//===----------------------------------------------------------------------===//

/// Most boxes NonMaxSuppression takes: the greedy kernel keeps the boxes
/// it selected as bit masks, two i64 results per 64 boxes.
constexpr int64_t kMaxSuppressionBoxes = 64 * 64;

/// NonMaxSuppression, per batch and class: the boxes ranked by score
/// (higher first, ties by index), the overlaps between the boxes of each
/// batch as bit masks (computed once for every class), then a greedy
/// kernel that walks the ranks in order, selecting a box when its score passes
/// the threshold, fewer than max_output_boxes_per_class are selected and no
/// selected box overlaps it by more than iou_threshold (intersection over
/// union, as ONNX Runtime computes it). The selections are counted by a scan,
/// the count read back, and the [count, 3] result (batch, class, box) filled in
/// order.
LogicalResult lowerNonMaxSuppression(Node &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  MLIRContext *context = b.getContext();
  ArrayRef<int64_t> boxShape = n.shape(0), scoreShape = n.shape(1);
  int64_t batches = boxShape[0], boxes = boxShape[1];
  int64_t classes = scoreShape[1];
  if (boxShape[2] != 4) {
    return n.fail("input 0 (boxes) has " + llvm::Twine(boxShape[2]) +
                  " coordinates per box; it takes 4");
  }
  if (scoreShape[0] != batches || scoreShape[2] != boxes) {
    return n.fail("input 1 (scores) has the shape " + typeText(n.type(1)) +
                  "; it takes [" + llvm::Twine(batches) + ", classes, " +
                  llvm::Twine(boxes) + "] for the boxes' " +
                  typeText(n.type(0)));
  }
  for (unsigned i = 2; i < 5; ++i) {
    if (n.has(i) && n.type(i).getNumElements() != 1) {
      return n.fail("input " + llvm::Twine(i) + " has " +
                    llvm::Twine(n.type(i).getNumElements()) +
                    " values; it takes one");
    }
  }
  if (boxes > kMaxSuppressionBoxes) {
    return n.fail("it takes at most " + llvm::Twine(kMaxSuppressionBoxes) +
                  " boxes; the input has " + llvm::Twine(boxes));
  }
  int64_t centerPoint = n.intAttr("center_point_box", 0);
  if (centerPoint != 0 && centerPoint != 1) {
    return n.fail("center_point_box is " + llvm::Twine(centerPoint) +
                  "; it takes 0 or 1");
  }
  Type i64 = b.getI64Type();
  Type f32 = b.getF32Type();
  auto resultOf = [&](ArrayRef<OpFoldResult> sizes) {
    return RankedTensorType::get(staticShapeOf(sizes), i64);
  };
  if (batches == 0 || classes == 0 || boxes == 0) {
    return n.replace(
        tensor::EmptyOp::create(b, loc, SmallVector<int64_t>{0, 3}, i64)
            .getResult());
  }
  auto dim = [&](unsigned d) { return b.getAffineDimExpr(d); };
  // The scalar parameters, read by the kernels.
  auto scalarOf = [&](OpBuilder &nb, Location l, unsigned i) -> Value {
    SmallVector<Value> at(n.rank(i), indexConst(nb, l, 0));
    return tensor::ExtractOp::create(nb, l, n.in(i), at);
  };
  // Corners of each box as (y1, x1, y2, x2), y1 <= y2 and x1 <= x2, in f32.
  Value corners = generic(
      b, loc, {}, {}, RankedTensorType::get({batches, boxes, 4}, f32),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value box = linalg::IndexOp::create(nb, l, 1);
        Value c = linalg::IndexOp::create(nb, l, 2);
        auto coordinate = [&](int64_t k) -> Value {
          Value v = tensor::ExtractOp::create(
              nb, l, n.in(0), ValueRange{batch, box, indexConst(nb, l, k)});
          return convertScalar(nb, l, v, f32);
        };
        Value lowY, lowX, highY, highX;
        if (centerPoint) {
          Value half = scalar(nb, l, f32, 0.5);
          Value cx = coordinate(0), cy = coordinate(1);
          Value w = arith::MulFOp::create(nb, l, coordinate(2), half);
          Value h = arith::MulFOp::create(nb, l, coordinate(3), half);
          lowX = arith::SubFOp::create(nb, l, cx, w);
          highX = arith::AddFOp::create(nb, l, cx, w);
          lowY = arith::SubFOp::create(nb, l, cy, h);
          highY = arith::AddFOp::create(nb, l, cy, h);
        } else {
          Value y1 = coordinate(0), x1 = coordinate(1);
          Value y2 = coordinate(2), x2 = coordinate(3);
          lowY = arith::MinimumFOp::create(nb, l, y1, y2);
          highY = arith::MaximumFOp::create(nb, l, y1, y2);
          lowX = arith::MinimumFOp::create(nb, l, x1, x2);
          highX = arith::MaximumFOp::create(nb, l, x1, x2);
        }
        Value v = highX;
        Value values[3] = {lowY, lowX, highY};
        for (int64_t k = 2; k >= 0; --k) {
          Value here = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, c,
                                             indexConst(nb, l, k));
          v = arith::SelectOp::create(nb, l, here, values[k], v);
        }
        return v;
      });
  // rank[b, c, j]: the boxes ranked above box j (higher score, or the same
  // score and a lower index).
  auto map3 = [&](unsigned dims, ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(dims, 0, exprs, context);
  };
  SmallVector<utils::IteratorType> reduce3 = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::parallel, utils::IteratorType::reduction};
  Value rankInit =
      filled(b, loc, {batches, classes, boxes}, scalar(b, loc, i64, 0));
  Value ranks =
      linalg::GenericOp::create(
          b, loc, TypeRange{rankInit.getType()}, ValueRange{n.in(1), n.in(1)},
          ValueRange{rankInit},
          {map3(4, {dim(0), dim(1), dim(2)}), map3(4, {dim(0), dim(1), dim(3)}),
           map3(4, {dim(0), dim(1), dim(2)})},
          reduce3,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value mine = args[0], other = args[1];
            Value earlier =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                      linalg::IndexOp::create(nb, l, 3),
                                      linalg::IndexOp::create(nb, l, 2));
            // A strict total order, so the ranks are a permutation: NaN
            // scores rank below every number and equal each other.
            ScalarOrder scoreOrder{nb.getF32Type(), false};
            Value otherNumber = arith::CmpFOp::create(
                nb, l, arith::CmpFPredicate::ORD, other, other);
            Value mineNaN = arith::CmpFOp::create(
                nb, l, arith::CmpFPredicate::UNO, mine, mine);
            Value above = arith::OrIOp::create(
                nb, l,
                arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, other,
                                      mine),
                arith::AndIOp::create(nb, l, otherNumber, mineNaN));
            above = arith::OrIOp::create(
                nb, l, above,
                arith::AndIOp::create(
                    nb, l, scoreOrder.same(nb, l, other, mine), earlier));
            linalg::YieldOp::create(
                nb, l,
                ValueRange{
                    arith::AddIOp::create(
                        nb, l, args[2],
                        arith::ExtUIOp::create(nb, l, nb.getI64Type(), above))
                        .getResult()});
          })
          ->getResult(0);
  // order[b, c, p]: the box of rank p.
  Value orderInit =
      filled(b, loc, {batches, classes, boxes}, scalar(b, loc, i64, 0));
  Value order =
      linalg::GenericOp::create(
          b, loc, TypeRange{orderInit.getType()}, ValueRange{ranks},
          ValueRange{orderInit},
          {map3(4, {dim(0), dim(1), dim(3)}),
           map3(4, {dim(0), dim(1), dim(2)})},
          reduce3,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value p = toI64(nb, l, linalg::IndexOp::create(nb, l, 2));
            Value j = toI64(nb, l, linalg::IndexOp::create(nb, l, 3));
            Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              args[0], p);
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::SelectOp::create(nb, l, hit, j, args[1])
                               .getResult()});
          })
          ->getResult(0);
  // overlaps[b, i, w]: bit e set when box j = 64 w + e (another box of
  // batch b) overlaps box i by more than the threshold. Symmetric, and the
  // same for every class.
  int64_t words = (boxes + 63) / 64;
  Value bitsOfWord = splat(b, loc, {64}, b.getI8Type(), 0);
  Value overlapInit =
      filled(b, loc, {batches, boxes, words}, scalar(b, loc, i64, 0));
  Value overlaps =
      linalg::GenericOp::create(
          b, loc, TypeRange{overlapInit.getType()}, ValueRange{bitsOfWord},
          ValueRange{overlapInit},
          {map3(4, {dim(3)}), map3(4, {dim(0), dim(1), dim(2)})},
          {utils::IteratorType::parallel, utils::IteratorType::parallel,
           utils::IteratorType::parallel, utils::IteratorType::reduction},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value batch = linalg::IndexOp::create(nb, l, 0);
            Value mine = linalg::IndexOp::create(nb, l, 1);
            Value e = linalg::IndexOp::create(nb, l, 3);
            Value j = arith::AddIOp::create(
                nb, l,
                arith::MulIOp::create(nb, l, linalg::IndexOp::create(nb, l, 2),
                                      indexConst(nb, l, 64)),
                e);
            Value another = arith::AndIOp::create(
                nb, l,
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, j,
                                      indexConst(nb, l, boxes)),
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, j,
                                      mine));
            Value other = arith::SelectOp::create(nb, l, another, j,
                                                  indexConst(nb, l, 0));
            auto corner = [&](Value box, int64_t k) -> Value {
              return tensor::ExtractOp::create(
                  nb, l, corners, ValueRange{batch, box, indexConst(nb, l, k)});
            };
            Value zero = scalar(nb, l, f32, 0);
            auto extent = [&](Value low, Value high) -> Value {
              return arith::SubFOp::create(nb, l, high, low);
            };
            Value interY = arith::MaximumFOp::create(
                nb, l,
                extent(arith::MaximumFOp::create(nb, l, corner(mine, 0),
                                                 corner(other, 0)),
                       arith::MinimumFOp::create(nb, l, corner(mine, 2),
                                                 corner(other, 2))),
                zero);
            Value interX = arith::MaximumFOp::create(
                nb, l,
                extent(arith::MaximumFOp::create(nb, l, corner(mine, 1),
                                                 corner(other, 1)),
                       arith::MinimumFOp::create(nb, l, corner(mine, 3),
                                                 corner(other, 3))),
                zero);
            Value inter = arith::MulFOp::create(nb, l, interY, interX);
            auto area = [&](Value box) -> Value {
              return arith::MulFOp::create(
                  nb, l, extent(corner(box, 0), corner(box, 2)),
                  extent(corner(box, 1), corner(box, 3)));
            };
            Value areaMine = area(mine), areaOther = area(other);
            Value unionArea = arith::SubFOp::create(
                nb, l, arith::AddFOp::create(nb, l, areaMine, areaOther),
                inter);
            auto positive = [&](Value v) -> Value {
              return arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, v,
                                           zero);
            };
            Value threshold =
                n.has(3) ? convertScalar(nb, l, scalarOf(nb, l, 3), f32) : zero;
            Value over = arith::CmpFOp::create(
                nb, l, arith::CmpFPredicate::OGT,
                arith::DivFOp::create(nb, l, inter, unionArea), threshold);
            Value hit = another;
            for (Value ok : {positive(inter), positive(areaMine),
                             positive(areaOther), positive(unionArea), over}) {
              hit = arith::AndIOp::create(nb, l, hit, ok);
            }
            Value bit = arith::ShLIOp::create(nb, l, i64Const(nb, l, 1),
                                              toI64(nb, l, e));
            Value acc = args[1];
            linalg::YieldOp::create(
                nb, l,
                ValueRange{
                    arith::SelectOp::create(
                        nb, l, hit, arith::OrIOp::create(nb, l, acc, bit), acc)
                        .getResult()});
          })
          ->getResult(0);
  // The greedy walk: per (b, c), the ranks in order (a reduction loop, which
  // runs in order: its combiner reads the selections so far). Its results
  // are the selected boxes as `words` masks by box (which the overlaps
  // test), the same by rank (which order the output), then their count.
  Value zeros = filled(b, loc, {batches, classes}, scalar(b, loc, i64, 0));
  SmallVector<Value> inits(2 * words + 1, zeros);
  SmallVector<Type> initTypes(2 * words + 1, zeros.getType());
  SmallVector<AffineMap> greedyMaps = {map3(3, {dim(0), dim(1), dim(2)})};
  greedyMaps.append(2 * words + 1, map3(3, {dim(0), dim(1)}));
  auto greedy = linalg::GenericOp::create(
      b, loc, initTypes, ValueRange{order}, inits, greedyMaps,
      {utils::IteratorType::parallel, utils::IteratorType::parallel,
       utils::IteratorType::reduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value cls = linalg::IndexOp::create(nb, l, 1);
        Value p = linalg::IndexOp::create(nb, l, 2);
        Value box = toIndex(nb, l, args[0]);
        ValueRange byBox = args.slice(1, words);
        ValueRange byRank = args.slice(1 + words, words);
        Value count = args.back();
        Value take = arith::ConstantIntOp::create(nb, l, 1, 1);
        if (n.has(4)) {
          Value score =
              convertScalar(nb, l,
                            tensor::ExtractOp::create(
                                nb, l, n.in(1), ValueRange{batch, cls, box}),
                            f32);
          take = arith::CmpFOp::create(
              nb, l, arith::CmpFPredicate::OGT, score,
              convertScalar(nb, l, scalarOf(nb, l, 4), f32));
        }
        // An absent max_output_boxes_per_class is 0: nothing is selected.
        Value most = n.has(2) ? convertScalar(nb, l, scalarOf(nb, l, 2),
                                              nb.getI64Type(), n.isUnsigned(2))
                              : i64Const(nb, l, 0);
        take = arith::AndIOp::create(
            nb, l, take,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, count,
                                  most));
        Value conflicts = i64Const(nb, l, 0);
        for (int64_t w = 0; w < words; ++w) {
          Value overlap = tensor::ExtractOp::create(
              nb, l, overlaps, ValueRange{batch, box, indexConst(nb, l, w)});
          conflicts = arith::OrIOp::create(
              nb, l, conflicts,
              arith::AndIOp::create(nb, l, overlap, byBox[w]));
        }
        take = arith::AndIOp::create(
            nb, l, take,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, conflicts,
                                  i64Const(nb, l, 0)));
        // Sets bit `at` of the masks `masks` when taken.
        SmallVector<Value> next;
        auto mark = [&](ValueRange masks, Value at) {
          Value at64 = toI64(nb, l, at);
          Value word = arith::DivUIOp::create(nb, l, at64, i64Const(nb, l, 64));
          Value bit = arith::ShLIOp::create(
              nb, l, i64Const(nb, l, 1),
              arith::RemUIOp::create(nb, l, at64, i64Const(nb, l, 64)));
          for (int64_t w = 0; w < words; ++w) {
            Value here = arith::AndIOp::create(
                nb, l, take,
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, word,
                                      i64Const(nb, l, w)));
            next.push_back(arith::SelectOp::create(
                nb, l, here, arith::OrIOp::create(nb, l, masks[w], bit),
                masks[w]));
          }
        };
        mark(byBox, box);
        mark(byRank, p);
        next.push_back(arith::AddIOp::create(
            nb, l, count,
            arith::ExtUIOp::create(nb, l, nb.getI64Type(), take)));
        linalg::YieldOp::create(nb, l, next);
      });
  SmallVector<Value> selected;
  for (int64_t w = 0; w < words; ++w) {
    selected.push_back(greedy->getResult(words + w));
  }
  Value perClass = greedy->getResult(2 * words);
  // Where each (b, c)'s rows start: an exclusive scan of the counts; their
  // total is read back.
  int64_t groups = batches * classes;
  Value classInclusive =
      inclusiveScan(b, loc, reshape(b, loc, perClass, {groups}));
  OpFoldResult total = readCount(b, loc, classInclusive);
  // The inclusive count of selections up to each (b, c, p) in row-major
  // order: the rows before (b, c), plus the selected ranks up to p.
  Value upTo = generic(
      b, loc, {}, {}, RankedTensorType::get({batches, classes, boxes}, i64),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value cls = linalg::IndexOp::create(nb, l, 1);
        Value p = toI64(nb, l, linalg::IndexOp::create(nb, l, 2));
        Value group = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, batch, indexConst(nb, l, classes)),
            cls);
        Value v = arith::SubIOp::create(
            nb, l, tensor::ExtractOp::create(nb, l, classInclusive, group),
            tensor::ExtractOp::create(nb, l, perClass, ValueRange{batch, cls}));
        Value word = arith::DivUIOp::create(nb, l, p, i64Const(nb, l, 64));
        // Bits 0..p % 64 (2 << 63 wraps to 0, and 0 - 1 is every bit).
        Value mask = arith::SubIOp::create(
            nb, l,
            arith::ShLIOp::create(
                nb, l, i64Const(nb, l, 2),
                arith::RemUIOp::create(nb, l, p, i64Const(nb, l, 64))),
            i64Const(nb, l, 1));
        for (int64_t w = 0; w < words; ++w) {
          Value bits = tensor::ExtractOp::create(nb, l, selected[w],
                                                 ValueRange{batch, cls});
          Value wv = i64Const(nb, l, w);
          Value whole =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, wv, word);
          Value partial =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, wv, word);
          Value counted = arith::SelectOp::create(
              nb, l, whole, bits,
              arith::SelectOp::create(nb, l, partial,
                                      arith::AndIOp::create(nb, l, bits, mask),
                                      i64Const(nb, l, 0)));
          v = arith::AddIOp::create(nb, l, v,
                                    math::CtPopOp::create(nb, l, counted));
        }
        return v;
      });
  Value positions =
      selectedPositions(b, loc, reshape(b, loc, upTo, {groups * boxes}), total);
  Value result = generic(
      b, loc, positions, map3(2, {dim(0)}),
      resultOf({total, b.getIndexAttr(3)}),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value column = linalg::IndexOp::create(nb, l, 1);
        Value flat = a[0];
        Value batch = arith::DivUIOp::create(nb, l, flat,
                                             i64Const(nb, l, classes * boxes));
        Value cls = arith::RemUIOp::create(
            nb, l, arith::DivUIOp::create(nb, l, flat, i64Const(nb, l, boxes)),
            i64Const(nb, l, classes));
        Value p = arith::RemUIOp::create(nb, l, flat, i64Const(nb, l, boxes));
        Value box = tensor::ExtractOp::create(nb, l, order,
                                              ValueRange{toIndex(nb, l, batch),
                                                         toIndex(nb, l, cls),
                                                         toIndex(nb, l, p)});
        Value v = box;
        Value isClass = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              column, indexConst(nb, l, 1));
        v = arith::SelectOp::create(nb, l, isClass, cls, v);
        Value isBatch = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              column, indexConst(nb, l, 0));
        return arith::SelectOp::create(nb, l, isBatch, batch, v);
      },
      {total, b.getIndexAttr(3)});
  return n.replace(result);
}

} // namespace

void mlir::strata::onnx::addDataDependentLowerings(LoweringTable &table) {
  table["NonZero"] = lowerNonZero;
  table["Unique"] = lowerUnique;
  table["NonMaxSuppression"] = lowerNonMaxSuppression;
  table.allowDynamic({"NonZero"});
}
