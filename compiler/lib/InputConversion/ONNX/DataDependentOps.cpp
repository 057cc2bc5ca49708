// DataDependentOps.cpp - ONNX op types whose result's shape depends on the
// data: NonZero, Compress with a run-time condition and Unique, and the
// selection helpers they share with NonMaxSuppression.cpp. Each is a count
// kernel, a read-back of the count on the host (tensor.extract of a
// kernel's result: the host waits for that kernel, a sync point the stream
// IR shows as an await), a result allocated with that size, and a fill
// kernel. Selections go through an inclusive prefix count computed by
// kernels (a Hillis-Steele scan) and a binary search per result element,
// so no host loop walks the elements.

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

} // namespace

/// Inclusive prefix sums of `x`, a 1-D i64 tensor of n elements, by
/// Hillis-Steele: ceil(log2 n) kernels, step s adding to each element the
/// one s before it (n log n work, each step parallel). A static n unrolls
/// the steps; a dynamic one runs them in an scf.while on the host, one
/// dispatch per step.
Value mlir::strata::onnx::inclusiveScan(OpBuilder &b, Location loc, Value x) {
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
OpFoldResult mlir::strata::onnx::readCount(OpBuilder &b, Location loc,
                                           Value inclusive) {
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
Value mlir::strata::onnx::selectedPositions(OpBuilder &b, Location loc,
                                            Value inclusive,
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

namespace {

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
  // The positions are read, not mapped, so they stay a kernel of their own:
  // fused, each row would search again.
  Value result = generic(
      b, loc, {}, {}, resultType,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value position = tensor::ExtractOp::create(
            nb, l, positions, ValueRange{linalg::IndexOp::create(nb, l, 1)});
        // Row d: (position / stride[d]) % size[d], chosen by the row.
        Value row = linalg::IndexOp::create(nb, l, 0);
        Value v = i64Const(nb, l, 0);
        for (int64_t d = 0; d < rank; ++d) {
          Value coordinate = arith::RemSIOp::create(
              nb, l, arith::DivSIOp::create(nb, l, position, strides[d]),
              extents[d]);
          Value here = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
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
  // The positions are read, not mapped, so they stay a kernel of their own:
  // fused, each element of a slice would search again.
  Value result = generic(
      b, loc, {}, {}, resultType,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < type.getRank(); ++d) {
          Value i = linalg::IndexOp::create(nb, l, d);
          at.push_back(d == axis ? toIndex(nb, l,
                                           tensor::ExtractOp::create(
                                               nb, l, positions, ValueRange{i}))
                                 : i);
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

} // namespace

void mlir::strata::onnx::addDataDependentLowerings(LoweringTable &table) {
  table["NonZero"] = lowerNonZero;
  table["Unique"] = lowerUnique;
  table.allowDynamic({"NonZero"});
}
