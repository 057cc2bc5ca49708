// ReductionOps.cpp - ONNX's reductions (Reduce*, ArgMax/ArgMin), the
// softmax family, LayerNormalization and CumSum as linalg reductions and
// broadcasting elementwise generics.

#include "Lowering.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

enum class Reduction { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp,
                       SumSquare };

/// The accumulation type: f16 and bf16 sum in f32.
Type accumulatorType(OpBuilder &b, Type element) {
  if (element.isF16() || element.isBF16()) {
    return b.getF32Type();
  }
  return element;
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloat(x.getType())) {
    return arith::AddFOp::create(b, loc, x, y);
  }
  return arith::AddIOp::create(b, loc, x, y);
}

Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloat(x.getType())) {
    return arith::MulFOp::create(b, loc, x, y);
  }
  return arith::MulIOp::create(b, loc, x, y);
}

/// The shape of `shape` with `axes` kept as 1 (keepdims) or dropped.
SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes, bool keep) {
  SmallVector<int64_t> result;
  for (auto [d, dim] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(d))) {
      result.push_back(dim);
    } else if (keep) {
      result.push_back(1);
    }
  }
  return result;
}

/// The sizes of `input` with `axes` kept as 1 (keepdims) or dropped.
SmallVector<OpFoldResult> reducedSizes(OpBuilder &b, Location loc, Value input,
                                       ArrayRef<int64_t> axes, bool keep) {
  SmallVector<OpFoldResult> result;
  for (auto [d, dim] : llvm::enumerate(dimsOf(b, loc, input))) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(d))) {
      result.push_back(dim);
    } else if (keep) {
      result.push_back(b.getIndexAttr(1));
    }
  }
  return result;
}

/// The element count of `input` over `axes` as a scalar of `type`: a
/// constant when those dimensions are static, else computed on the host
/// (the kernel takes it as a push constant).
Value countOf(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
              Type type) {
  SmallVector<OpFoldResult> dims;
  for (int64_t a : axes) {
    dims.push_back(dimOf(b, loc, input, a));
  }
  OpFoldResult count = productOf(b, loc, dims);
  if (std::optional<int64_t> known = getConstantIntValue(count)) {
    return scalar(b, loc, type, static_cast<double>(*known));
  }
  Value wide =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), cast<Value>(count));
  return convertScalar(b, loc, wide, type);
}

/// Sum (or max, min, product) of `input` over `axes`, accumulated in
/// `accType`, with `pre` applied to each element; keeps dims of size 1.
Value reduceKeep(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> axes, Type accType, Reduction kind,
                 bool isUnsigned,
                 function_ref<Value(OpBuilder &, Location, Value)> pre) {
  double initValue = 0;
  Value init;
  switch (kind) {
  case Reduction::Max:
    init = isUnsigned ? scalar(b, loc, accType, 0) : lowest(b, loc, accType);
    break;
  case Reduction::Min:
    init = isUnsigned ? arith::ConstantOp::create(
                            b, loc, b.getIntegerAttr(
                                        accType, APInt::getMaxValue(
                                                     accType.getIntOrFloatBitWidth())))
                            .getResult()
                      : highest(b, loc, accType);
    break;
  case Reduction::Prod:
    initValue = 1;
    [[fallthrough]];
  default:
    init = scalar(b, loc, accType, initValue);
  }
  Value reduced = reduce(
      b, loc, input, axes, init,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value x = convertScalar(nb, l, args[0], accType, isUnsigned,
                                isUnsigned);
        if (pre) {
          x = pre(nb, l, x);
        }
        Value acc = args[1];
        switch (kind) {
        case Reduction::Max:
          if (isFloat(accType)) {
            return arith::MaximumFOp::create(nb, l, acc, x);
          }
          return isUnsigned ? arith::MaxUIOp::create(nb, l, acc, x).getResult()
                            : arith::MaxSIOp::create(nb, l, acc, x).getResult();
        case Reduction::Min:
          if (isFloat(accType)) {
            return arith::MinimumFOp::create(nb, l, acc, x);
          }
          return isUnsigned ? arith::MinUIOp::create(nb, l, acc, x).getResult()
                            : arith::MinSIOp::create(nb, l, acc, x).getResult();
        case Reduction::Prod:
          return mul(nb, l, acc, x);
        default:
          return add(nb, l, acc, x);
        }
      });
  return reshapeTo(b, loc, reduced, reducedSizes(b, loc, input, axes, true));
}

//===----------------------------------------------------------------------===//
// Reductions over axes known at run time
//===----------------------------------------------------------------------===//

/// The dimensions a reduction reduces when its axes arrive as data: per
/// input dimension, whether it is reduced (an i1 on the host), the sizes of
/// the result in keepdims form (1 where reduced) and those of the window
/// each result element reduces (the dimension where reduced, else 1).
struct RuntimeAxes {
  SmallVector<Value> reduced;
  SmallVector<OpFoldResult> kept, window;
  int64_t count = 0;
};

/// Reads the axes `values` for `input` on the host and checks them at run
/// time: each in [-rank, rank), none twice.
RuntimeAxes runtimeAxes(Node &n, Value input, ArrayRef<OpFoldResult> values) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value rankValue = arith::ConstantIndexOp::create(b, loc, rank);
  SmallVector<Value> axes;
  for (OpFoldResult value : values) {
    Value a = indexValueOf(b, loc, value);
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, zero);
    a = arith::SelectOp::create(b, loc, negative,
                                arith::AddIOp::create(b, loc, a, rankValue), a);
    Value inside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, a, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, rankValue));
    n.check(inside, "an axis is outside [-" + llvm::Twine(rank) + ", " +
                        llvm::Twine(rank) + ") at run time");
    for (Value earlier : axes) {
      n.check(
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, a, earlier),
          "axes lists an axis twice at run time");
    }
    axes.push_back(a);
  }
  RuntimeAxes result;
  result.count = values.size();
  OpFoldResult one = b.getIndexAttr(1);
  for (int64_t d = 0; d < rank; ++d) {
    Value reduced = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (Value a : axes) {
      reduced = arith::OrIOp::create(
          b, loc, reduced,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a,
                                arith::ConstantIndexOp::create(b, loc, d)));
    }
    OpFoldResult size = dimOf(b, loc, input, d);
    auto pick = [&](OpFoldResult ifReduced, OpFoldResult otherwise) {
      return simplifyHostScalar(arith::SelectOp::create(
          b, loc, reduced, indexValueOf(b, loc, ifReduced),
          indexValueOf(b, loc, otherwise)));
    };
    result.reduced.push_back(reduced);
    result.kept.push_back(pick(one, size));
    result.window.push_back(pick(size, one));
  }
  return result;
}

/// A shape-only operand of `sizes` (each at most `input`'s): the leading
/// slice of `input` itself, which the kernel views in place. A tensor.empty
/// would do for a static window (pooling's) but a dynamic one would be a
/// kernel allocation of no known bound.
Value windowOf(OpBuilder &b, Location loc, Value input,
               ArrayRef<OpFoldResult> sizes) {
  int64_t rank = sizes.size();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, input, offsets, sizes, strides);
}

/// The reduction of `input` over run-time `axes` in keepdims form, as one
/// linalg.generic: a parallel loop o_d over each result dimension and a
/// reduction loop k_d over each window dimension (one of them is 1), the
/// input read at o_d + k_d; a shape-only window operand gives the reduction
/// loops their extents, as pooling ops do. `perResult` tensors (keepdims
/// form) are read at o; `body` gets (element, perResult..., accumulator).
Value reduceWindowed(OpBuilder &b, Location loc, Value input,
                     ValueRange perResult, const RuntimeAxes &axes, Value init,
                     BodyFn body) {
  int64_t rank = axes.kept.size();
  MLIRContext *context = b.getContext();
  SmallVector<AffineExpr> inputExprs, resultExprs, windowExprs;
  for (int64_t d = 0; d < rank; ++d) {
    inputExprs.push_back(b.getAffineDimExpr(d) + b.getAffineDimExpr(rank + d));
    resultExprs.push_back(b.getAffineDimExpr(d));
    windowExprs.push_back(b.getAffineDimExpr(rank + d));
  }
  AffineMap resultMap = AffineMap::get(2 * rank, 0, resultExprs, context);
  SmallVector<AffineMap> maps = {
      AffineMap::get(2 * rank, 0, inputExprs, context),
      AffineMap::get(2 * rank, 0, windowExprs, context)};
  maps.append(perResult.size(), resultMap);
  maps.push_back(resultMap);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(rank, utils::IteratorType::reduction);
  Value window = windowOf(b, loc, input, axes.window);
  Value out = filledTo(b, loc, axes.kept, init);
  SmallVector<Value> inputs = {input, window};
  inputs.append(perResult.begin(), perResult.end());
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{out.getType()}, inputs, ValueRange{out}, maps,
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> operands = {args[0]};
        operands.append(args.begin() + 2, args.end());
        linalg::YieldOp::create(nb, l, body(nb, l, operands));
      });
  return op->getResult(0);
}

/// The initial accumulator of a `kind` reduction in `accType`.
Value initialValue(OpBuilder &b, Location loc, Type accType, Reduction kind,
                   bool isUnsigned) {
  switch (kind) {
  case Reduction::Max:
    return isUnsigned ? scalar(b, loc, accType, 0) : lowest(b, loc, accType);
  case Reduction::Min:
    return isUnsigned
               ? arith::ConstantOp::create(
                     b, loc,
                     b.getIntegerAttr(
                         accType,
                         APInt::getMaxValue(accType.getIntOrFloatBitWidth())))
                     .getResult()
               : highest(b, loc, accType);
  case Reduction::Prod:
    return scalar(b, loc, accType, 1);
  default:
    return scalar(b, loc, accType, 0);
  }
}

/// acc combined with x by a `kind` reduction (sums for the others).
Value combine(OpBuilder &b, Location l, Reduction kind, bool isUnsigned,
              Value acc, Value x) {
  Type accType = acc.getType();
  switch (kind) {
  case Reduction::Max:
    if (isFloat(accType)) {
      return arith::MaximumFOp::create(b, l, acc, x);
    }
    return isUnsigned ? arith::MaxUIOp::create(b, l, acc, x).getResult()
                      : arith::MaxSIOp::create(b, l, acc, x).getResult();
  case Reduction::Min:
    if (isFloat(accType)) {
      return arith::MinimumFOp::create(b, l, acc, x);
    }
    return isUnsigned ? arith::MinUIOp::create(b, l, acc, x).getResult()
                      : arith::MinSIOp::create(b, l, acc, x).getResult();
  case Reduction::Prod:
    return mul(b, l, acc, x);
  default:
    return add(b, l, acc, x);
  }
}

/// Reduce* with axes read at run time (`values`); the result's dimensions
/// are dynamic where the axes decide them.
LogicalResult lowerReduceRuntime(Node &n, Reduction kind,
                                 ArrayRef<OpFoldResult> values) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = n.rank(0);
  bool keep = n.intAttr("keepdims", 1) != 0;
  if (static_cast<int64_t>(values.size()) > rank) {
    return n.fail("axes holds " + llvm::Twine(values.size()) +
                  " values for an input of rank " + llvm::Twine(rank));
  }
  Value x = n.in(0);
  Type element = n.elem(0);
  bool isUnsigned = n.isUnsigned(0);
  Type acc = accumulatorType(b, element);
  RuntimeAxes axes = runtimeAxes(n, x, values);
  // Each element converted to the accumulator type and prepared.
  auto prepare = [&](OpBuilder &nb, Location l, Value v) -> Value {
    v = convertScalar(nb, l, v, acc, isUnsigned, isUnsigned);
    switch (kind) {
    case Reduction::L1:
      if (isFloat(acc)) {
        return math::AbsFOp::create(nb, l, v);
      }
      return math::AbsIOp::create(nb, l, v);
    case Reduction::L2:
    case Reduction::SumSquare:
      return mul(nb, l, v, v);
    default:
      return v;
    }
  };
  Reduction combining = Reduction::Sum;
  if (kind == Reduction::Max || kind == Reduction::Min ||
      kind == Reduction::Prod) {
    combining = kind;
  } else if (kind == Reduction::LogSumExp) {
    combining = Reduction::Max;
  }
  // Bool orders as unsigned (max is any, min is all).
  bool orderUnsigned = isUnsigned || element.isInteger(1);
  Value result = reduceWindowed(
      b, loc, x, {}, axes, initialValue(b, loc, acc, combining, orderUnsigned),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        return combine(nb, l, combining, orderUnsigned, a[1],
                       prepare(nb, l, a[0]));
      });
  auto shape = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  // An infinite maximum (all -inf) must not give NaN: it shifts by 0.
  auto finiteShift = [](OpBuilder &nb, Location l, Value m) -> Value {
    Value isInf = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                        math::AbsFOp::create(nb, l, m),
                                        scalar(nb, l, m.getType(), INFINITY));
    return arith::SelectOp::create(nb, l, isInf, scalar(nb, l, m.getType(), 0),
                                   m);
  };
  if (kind == Reduction::LogSumExp) {
    Value max = result;
    Value sum = reduceWindowed(
        b, loc, x, max, axes, scalar(b, loc, acc, 0),
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value v = convertScalar(nb, l, a[0], acc);
          Value shifted =
              arith::SubFOp::create(nb, l, v, finiteShift(nb, l, a[1]));
          return arith::AddFOp::create(nb, l, a[2], expOf(nb, l, shifted));
        });
    result =
        elementwise(b, loc, {sum, max}, shape(sum), acc,
                    [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                      return arith::AddFOp::create(nb, l, logOf(nb, l, a[0]),
                                                   finiteShift(nb, l, a[1]));
                    });
  } else if (kind == Reduction::Mean || kind == Reduction::L2 ||
             kind == Reduction::LogSum) {
    Value count = indexValueOf(b, loc, productOf(b, loc, axes.window));
    count = convertScalar(
        b, loc, arith::IndexCastOp::create(b, loc, b.getI64Type(), count), acc);
    if (!isFloat(acc) && kind == Reduction::Mean) {
      result = elementwise(
          b, loc, result, shape(result), acc,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            return arith::DivSIOp::create(nb, l, a[0], count).getResult();
          });
    } else if (isFloat(acc)) {
      result =
          elementwise(b, loc, result, shape(result), acc,
                      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        switch (kind) {
                        case Reduction::Mean:
                          return arith::DivFOp::create(nb, l, a[0], count);
                        case Reduction::L2:
                          return math::SqrtOp::create(nb, l, a[0]);
                        default:
                          return logOf(nb, l, a[0]);
                        }
                      });
    }
  }
  result = convertTensor(b, loc, result, element, false, false);
  if (!keep) {
    // Result dimension j is the j-th input dimension not reduced: each
    // input dimension d lands at the count of those before it.
    SmallVector<OpFoldResult> sizes;
    SmallVector<Value> positions;
    Value position = arith::ConstantIndexOp::create(b, loc, 0);
    for (int64_t d = 0; d < rank; ++d) {
      positions.push_back(position);
      Value kept = arith::XOrIOp::create(
          b, loc, axes.reduced[d], arith::ConstantIntOp::create(b, loc, 1, 1));
      position = arith::AddIOp::create(
          b, loc, position,
          arith::SelectOp::create(b, loc, kept,
                                  arith::ConstantIndexOp::create(b, loc, 1),
                                  arith::ConstantIndexOp::create(b, loc, 0)));
    }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    for (int64_t j = 0; j < rank - axes.count; ++j) {
      Value size = zero;
      for (int64_t d = 0; d < rank; ++d) {
        Value here = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                  positions[d],
                                  arith::ConstantIndexOp::create(b, loc, j)),
            arith::XOrIOp::create(b, loc, axes.reduced[d],
                                  arith::ConstantIntOp::create(b, loc, 1, 1)));
        size = arith::SelectOp::create(b, loc, here,
                                       indexValueOf(b, loc, n.dim(0, d)), size);
      }
      sizes.push_back(simplifyHostScalar(size));
    }
    result = reshapeTo(b, loc, result, sizes);
  }
  return n.replace(result, {isUnsigned});
}

LogicalResult lowerReduce(Node &n, Reduction kind) {
  int64_t rank = n.rank(0);
  SmallVector<int64_t> axes;
  bool axesFromInput = n.opset() >= 18 || (kind == Reduction::Sum &&
                                           n.opset() >= 13);
  if (axesFromInput) {
    // An empty axes tensor (of a static length) is no axes.
    if (n.has(1) &&
        !(n.type(1).hasStaticShape() && n.type(1).getNumElements() == 0)) {
      FailureOr<SmallVector<OpFoldResult>> values = n.hostInts(1, "axes");
      if (failed(values)) {
        return failure();
      }
      if (llvm::any_of(*values, [](OpFoldResult v) { return isa<Value>(v); })) {
        return lowerReduceRuntime(n, kind, *values);
      }
      for (OpFoldResult v : *values) {
        axes.push_back(*getConstantIntValue(v));
      }
    }
  } else {
    axes = n.intsAttr("axes").value_or(SmallVector<int64_t>{});
  }
  // A repeated axis would count its dimension twice in the mean.
  if (failed(n.normalizeAxes(axes, rank))) {
    return failure();
  }
  bool keep = n.intAttr("keepdims", 1) != 0;
  Value x = n.in(0);
  Type element = n.elem(0);
  bool isUnsigned = n.isUnsigned(0);
  if (axes.empty()) {
    if (n.intAttr("noop_with_empty_axes", 0) != 0) {
      return n.replace(x, {isUnsigned});
    }
    for (int64_t d = 0; d < rank; ++d) {
      axes.push_back(d);
    }
  }
  Type acc = accumulatorType(n.b, element);
  Value result;
  Location loc = n.loc;
  OpBuilder &b = n.b;
  switch (kind) {
  case Reduction::Sum:
  case Reduction::Mean:
  case Reduction::Max:
  case Reduction::Min:
  case Reduction::Prod:
  case Reduction::LogSum:
    // Bool (ReduceMax/ReduceMin, opset 20) orders as unsigned: max is
    // any, min is all.
    result = reduceKeep(b, loc, x, axes, acc,
                        kind == Reduction::Mean || kind == Reduction::LogSum
                            ? Reduction::Sum
                            : kind,
                        isUnsigned || element.isInteger(1), nullptr);
    break;
  case Reduction::L1:
    result = reduceKeep(b, loc, x, axes, acc, Reduction::Sum, isUnsigned,
                        [](OpBuilder &nb, Location l, Value v) -> Value {
                          if (isFloat(v.getType())) {
                            return math::AbsFOp::create(nb, l, v);
                          }
                          return math::AbsIOp::create(nb, l, v);
                        });
    break;
  case Reduction::L2:
  case Reduction::SumSquare:
    result = reduceKeep(b, loc, x, axes, acc, Reduction::Sum, isUnsigned,
                        [](OpBuilder &nb, Location l, Value v) {
                          return mul(nb, l, v, v);
                        });
    break;
  case Reduction::LogSumExp: {
    Value max = reduceKeep(b, loc, x, axes, acc, Reduction::Max, false,
                           nullptr);
    Value shape = nullptr;
    (void)shape;
    Value wide = convertTensor(b, loc, x, acc);
    Value shifted = elementwise(
        b, loc, {wide, max}, n.shape(0), acc,
        [](OpBuilder &nb, Location l, ValueRange a) -> Value {
          // An infinite maximum (all -inf) must not give NaN.
          Value isInf = arith::CmpFOp::create(
              nb, l, arith::CmpFPredicate::OEQ,
              math::AbsFOp::create(nb, l, a[1]),
              scalar(nb, l, a[1].getType(), INFINITY));
          Value m = arith::SelectOp::create(
              nb, l, isInf, scalar(nb, l, a[1].getType(), 0), a[1]);
          return expOf(nb, l, arith::SubFOp::create(nb, l, a[0], m));
        });
    Value sum = reduceKeep(b, loc, shifted, axes, acc, Reduction::Sum, false,
                           nullptr);
    result = elementwise(
        b, loc, {sum, max}, cast<RankedTensorType>(sum.getType()).getShape(),
        acc, [](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value isInf = arith::CmpFOp::create(
              nb, l, arith::CmpFPredicate::OEQ,
              math::AbsFOp::create(nb, l, a[1]),
              scalar(nb, l, a[1].getType(), INFINITY));
          Value m = arith::SelectOp::create(
              nb, l, isInf, scalar(nb, l, a[1].getType(), 0), a[1]);
          return arith::AddFOp::create(nb, l, logOf(nb, l, a[0]), m);
        });
    break;
  }
  }
  auto resultType = cast<RankedTensorType>(result.getType());
  if (kind == Reduction::Mean || kind == Reduction::L2 ||
      kind == Reduction::LogSum) {
    Value count = countOf(b, loc, x, axes, acc);
    if (!isFloat(acc) && kind == Reduction::Mean) {
      result = elementwise(
          b, loc, result, resultType.getShape(), acc,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            return arith::DivSIOp::create(nb, l, a[0], count).getResult();
          });
    } else if (isFloat(acc)) {
      result = elementwise(
          b, loc, result, resultType.getShape(), acc,
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            switch (kind) {
            case Reduction::Mean:
              return arith::DivFOp::create(nb, l, a[0], count);
            case Reduction::L2:
              return math::SqrtOp::create(nb, l, a[0]);
            default:
              return logOf(nb, l, a[0]);
            }
          });
    }
  }
  result = convertTensor(b, loc, result, element);
  if (!keep) {
    result = reshapeTo(b, loc, result, reducedSizes(b, loc, x, axes, false));
  }
  return n.replace(result, {isUnsigned});
}

/// ArgMax/ArgMin: the first (or last) index of the extreme value.
LogicalResult lowerArgExtreme(Node &n, bool isMax) {
  int64_t rank = n.rank(0);
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 0), rank);
  if (failed(axis)) {
    return failure();
  }
  bool keep = n.intAttr("keepdims", 1) != 0;
  bool last = n.intAttr("select_last_index", 0) != 0;
  bool isUnsigned = n.isUnsigned(0);
  Type element = n.elem(0);
  Value x = n.in(0);
  Value extreme = reduceKeep(n.b, n.loc, x, {*axis}, element,
                             isMax ? Reduction::Max : Reduction::Min,
                             isUnsigned, nullptr);
  // The index: min (first) or max (last) over the positions holding the
  // extreme value.
  Type i64 = n.b.getI64Type();
  int64_t dim = n.shape(0)[*axis];
  int64_t axisValue = *axis;
  Value candidates = elementwise(
      n.b, n.loc, {x, extreme}, n.shape(0), i64,
      [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Value equal;
        if (isFloat(element)) {
          equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                        a[0], a[1]);
        } else {
          equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        a[0], a[1]);
        }
        Value index = arith::IndexCastOp::create(
            b, loc, i64, linalg::IndexOp::create(b, loc, axisValue));
        return arith::SelectOp::create(b, loc, equal, index,
                                       scalar(b, loc, i64, last ? -1 : dim));
      });
  Value result = reduceKeep(n.b, n.loc, candidates, {*axis}, i64,
                            last ? Reduction::Max : Reduction::Min, false,
                            nullptr);
  if (!keep) {
    result = reshape(n.b, n.loc, result,
                     reducedShape(n.shape(0), {*axis}, false));
  }
  return n.replace(result);
}

enum class SoftmaxKind { Softmax, LogSoftmax, Hardmax };

LogicalResult lowerSoftmax(Node &n, SoftmaxKind kind) {
  int64_t rank = n.rank(0);
  bool coerced = n.opset() < 13;
  FailureOr<int64_t> axis =
      n.axis(n.intAttr("axis", coerced ? 1 : -1), rank);
  if (failed(axis)) {
    return failure();
  }
  if (!isFloat(n.elem(0))) {
    return n.fail("expects a floating-point input");
  }
  Value x = n.in(0);
  ArrayRef<int64_t> inputShape = n.shape(0);
  SmallVector<int64_t> axes;
  SmallVector<int64_t> shape(inputShape);
  if (coerced) {
    // Opsets before 13: the input as a 2-D matrix split at `axis`.
    SmallVector<OpFoldResult> dims = n.dims(0);
    OpFoldResult outer =
        productOf(n.b, n.loc, ArrayRef<OpFoldResult>(dims).take_front(*axis));
    OpFoldResult inner =
        productOf(n.b, n.loc, ArrayRef<OpFoldResult>(dims).drop_front(*axis));
    x = reshapeTo(n.b, n.loc, x, {outer, inner});
    shape =
        SmallVector<int64_t>(cast<RankedTensorType>(x.getType()).getShape());
    axes = {1};
  } else {
    axes = {*axis};
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  Type acc = accumulatorType(b, element);
  Value result;
  if (kind == SoftmaxKind::Hardmax) {
    // One-hot of the first maximum.
    Value max = reduceKeep(b, loc, x, axes, element, Reduction::Max, false,
                           nullptr);
    int64_t axisValue = axes[0];
    int64_t dim = shape[axisValue];
    Value firsts = elementwise(
        b, loc, {x, max}, shape, b.getI64Type(),
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value equal = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                              a[0], a[1]);
          Value index = arith::IndexCastOp::create(
              nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, axisValue));
          return arith::SelectOp::create(nb, l, equal, index,
                                         scalar(nb, l, nb.getI64Type(), dim));
        });
    Value first = reduceKeep(b, loc, firsts, axes, b.getI64Type(),
                             Reduction::Min, false, nullptr);
    result = elementwise(
        b, loc, first, shape, element,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value index = arith::IndexCastOp::create(
              nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, axisValue));
          Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                            index, a[0]);
          return arith::SelectOp::create(nb, l, hit, scalar(nb, l, element, 1),
                                         scalar(nb, l, element, 0));
        });
  } else if (kind == SoftmaxKind::Softmax) {
    // One linalg.softmax: it stays one op, so one dispatch, through flow;
    // the code generator decomposes it inside each workgroup's band of rows
    // (TileAndDistribute.cpp), so every row is read from memory once.
    Value wide = convertTensor(b, loc, x, acc);
    Value init = emptyTensor(b, loc, tensor::getMixedSizes(b, loc, wide), acc);
    result = linalg::SoftmaxOp::create(b, loc, TypeRange{wide.getType()}, wide,
                                       init, static_cast<uint64_t>(axes[0]))
                 .getResult()[0];
    result = convertTensor(b, loc, result, element);
  } else {
    // LogSoftmax: x - max - log(sum(exp(x - max))), which log(softmax(x))
    // is not where exp underflows (a probability of 0 gives -inf).
    Value wide = convertTensor(b, loc, x, acc);
    Value max = reduceKeep(b, loc, wide, axes, acc, Reduction::Max, false,
                           nullptr);
    Value shifted = elementwise(
        b, loc, {wide, max}, shape, acc,
        [](OpBuilder &nb, Location l, ValueRange a) -> Value {
          return arith::SubFOp::create(nb, l, a[0], a[1]);
        });
    Value exps = elementwise(b, loc, shifted, shape, acc,
                             [](OpBuilder &nb, Location l, ValueRange a) {
                               return expOf(nb, l, a[0]);
                             });
    Value sum = reduceKeep(b, loc, exps, axes, acc, Reduction::Sum, false,
                           nullptr);
    result = elementwise(b, loc, {shifted, sum}, shape, acc,
                         [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return arith::SubFOp::create(nb, l, a[0],
                                                        logOf(nb, l, a[1]));
                         });
    result = convertTensor(b, loc, result, element);
  }
  return n.replace(reshapeTo(b, loc, result, n.dims(0)));
}

/// LayerNormalization's statistics of `x` (f64) over `axes`, kept as
/// dims of 1: the mean, then 1 / sqrt(variance + epsilon), from the mean
/// and the sum of squares of the centred values (two passes).
std::pair<Value, Value> twoPassStatistics(OpBuilder &b, Location loc, Value x,
                                          ArrayRef<int64_t> axes,
                                          double epsilon) {
  Type acc = getElementTypeOrSelf(x.getType());
  Value count = countOf(b, loc, x, axes, acc);
  auto divideBy = [&](Value v) {
    return elementwise(
        b, loc, v, cast<RankedTensorType>(v.getType()).getShape(), acc,
        [&](OpBuilder &nb, Location l, ValueRange a) {
          return arith::DivFOp::create(nb, l, a[0], count).getResult();
        });
  };
  Value mean = divideBy(
      reduceKeep(b, loc, x, axes, acc, Reduction::Sum, false, nullptr));
  Value centered = elementwise(
      b, loc, {x, mean}, cast<RankedTensorType>(x.getType()).getShape(), acc,
      [](OpBuilder &nb, Location l, ValueRange a) {
        return arith::SubFOp::create(nb, l, a[0], a[1]).getResult();
      });
  Value var = divideBy(
      reduceKeep(b, loc, centered, axes, acc, Reduction::Sum, false,
                 [](OpBuilder &nb, Location l, Value v) {
                   return arith::MulFOp::create(nb, l, v, v).getResult();
                 }));
  Value invStd = elementwise(
      b, loc, var, cast<RankedTensorType>(var.getType()).getShape(), acc,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value s = math::SqrtOp::create(
            nb, l,
            arith::AddFOp::create(nb, l, a[0], scalar(nb, l, acc, epsilon)));
        return arith::DivFOp::create(nb, l, scalar(nb, l, acc, 1.0), s);
      });
  return {mean, invStd};
}

/// The same statistics of an f32 `x` in one pass over it: its sum and sum
/// of squares accumulated in f64 (one linalg.generic with two results),
/// then per row the mean and max(E[x^2] - mean^2, 0) in f64, rounded to
/// f32 once. In f64 the difference keeps about 29 more bits than the f32
/// values carry, so the two-pass form's second reduction and the centred
/// copy of x between them are not needed: four dispatches instead of five,
/// which took 0.72x of the time on a transformer's LayerNorms at batch 8
/// (1024 x 256; Intel Xeon, 2026-12-06, docs/performance.md).
std::pair<Value, Value> onePassStatistics(OpBuilder &b, Location loc, Value x,
                                          ArrayRef<int64_t> axes,
                                          double epsilon) {
  auto type = cast<RankedTensorType>(x.getType());
  Type f64 = b.getF64Type();
  Type f32 = b.getF32Type();
  int64_t rank = type.getRank();
  ReductionLoops loops = reductionLoops(b, loc, x, axes);
  SmallVector<OpFoldResult> &sizes = loops.keptSizes;
  Value zero = scalar(b, loc, f64, 0.0);
  Value sums = filledTo(b, loc, sizes, zero);
  AffineMap kept = loops.keptMap;
  auto reduction = linalg::GenericOp::create(
      b, loc, TypeRange{sums.getType(), sums.getType()}, ValueRange{x},
      ValueRange{sums, sums},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank), kept, kept},
      loops.iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = arith::ExtFOp::create(nb, l, f64, args[0]);
        Value sum = arith::AddFOp::create(nb, l, args[1], v);
        Value squares = arith::AddFOp::create(
            nb, l, args[2], arith::MulFOp::create(nb, l, v, v));
        linalg::YieldOp::create(nb, l, ValueRange{sum, squares});
      });
  Value count = countOf(b, loc, x, axes, f64);
  int64_t keptRank = static_cast<int64_t>(sizes.size());
  Value stats = filledTo(b, loc, sizes, scalar(b, loc, f32, 0.0));
  AffineMap identity = b.getMultiDimIdentityMap(keptRank);
  auto perRow = linalg::GenericOp::create(
      b, loc, TypeRange{stats.getType(), stats.getType()},
      reduction->getResults(), ValueRange{stats, stats},
      SmallVector<AffineMap>(4, identity),
      SmallVector<utils::IteratorType>(keptRank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value mean = arith::DivFOp::create(nb, l, args[0], count);
        Value meanOfSquares = arith::DivFOp::create(nb, l, args[1], count);
        Value var = arith::SubFOp::create(
            nb, l, meanOfSquares, arith::MulFOp::create(nb, l, mean, mean));
        var = arith::MaximumFOp::create(nb, l, var, scalar(nb, l, f64, 0.0));
        Value std = math::SqrtOp::create(
            nb, l,
            arith::AddFOp::create(nb, l, var, scalar(nb, l, f64, epsilon)));
        Value invStd =
            arith::DivFOp::create(nb, l, scalar(nb, l, f64, 1.0), std);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::TruncFOp::create(nb, l, f32, mean),
                       arith::TruncFOp::create(nb, l, f32, invStd)});
      });
  SmallVector<OpFoldResult> keepSizes = reducedSizes(b, loc, x, axes, true);
  return {reshapeTo(b, loc, perRow->getResult(0), keepSizes),
          reshapeTo(b, loc, perRow->getResult(1), keepSizes)};
}

LogicalResult lowerLayerNorm(Node &n) {
  int64_t rank = n.rank(0);
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", -1), rank);
  if (failed(axis)) {
    return failure();
  }
  double epsilon = n.floatAttr("epsilon", 1e-5);
  for (unsigned i : {1u, 2u}) {
    FailureOr<SmallVector<int64_t>> shape =
        n.has(i)
            ? broadcastShapes({n.shape(0), n.shape(i)})
            : FailureOr<SmallVector<int64_t>>(SmallVector<int64_t>(n.shape(0)));
    if (failed(shape) || ArrayRef<int64_t>(*shape) != n.shape(0)) {
      return n.fail("input " + llvm::Twine(i) +
                    " does not broadcast to the shape of input 0");
    }
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  Type acc = b.getF32Type();
  if (element.isF64()) {
    acc = element;
  }
  SmallVector<int64_t> axes;
  for (int64_t d = *axis; d < rank; ++d) {
    axes.push_back(d);
  }
  ArrayRef<int64_t> shape = n.shape(0);
  Value x = convertTensor(b, loc, n.in(0), acc);
  auto [mean, invStd] = acc.isF64()
                            ? twoPassStatistics(b, loc, x, axes, epsilon)
                            : onePassStatistics(b, loc, x, axes, epsilon);
  SmallVector<Value> inputs = {x, mean, invStd,
                               convertTensor(b, loc, n.in(1), acc)};
  if (n.has(2)) {
    inputs.push_back(convertTensor(b, loc, n.in(2), acc));
  }
  Value y =
      elementwise(b, loc, inputs, shape, element,
                  [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                    Value v = arith::SubFOp::create(nb, l, a[0], a[1]);
                    v = arith::MulFOp::create(
                        nb, l, arith::MulFOp::create(nb, l, v, a[2]), a[3]);
                    if (a.size() > 4) {
                      v = arith::AddFOp::create(nb, l, v, a[4]);
                    }
                    return convertScalar(nb, l, v, element);
                  });
  Type statType = acc;
  if (std::optional<int64_t> stash = n.intAttr("stash_type");
      stash && *stash == 1) {
    statType = b.getF32Type();
  }
  SmallVector<Value> results = {y};
  if (n.numOutputs() > 1) {
    results.push_back(n.outputUsed(1) ? convertTensor(b, loc, mean, statType)
                                      : Value());
  }
  if (n.numOutputs() > 2) {
    results.push_back(n.outputUsed(2) ? convertTensor(b, loc, invStd, statType)
                                      : Value());
  }
  return n.replace(results);
}

/// GroupNormalization (opsets 18 and 21): the input (N, C, d...) viewed as
/// (N, G, C / G, P) with P the product of d..., each (n, g) normalized over
/// its last two dimensions, then scaled and shifted: per group at opset 18
/// (scale and bias of G values), per channel from opset 21 (C values).
/// The statistics are LayerNormalization's (one pass in f64 for f32 and
/// narrower inputs, two passes for f64 ones).
LogicalResult lowerGroupNorm(Node &n) {
  if (!n.has(1) || !n.has(2)) {
    return n.fail("expects the scale and the bias (inputs 1 and 2)");
  }
  ArrayRef<int64_t> shape = n.shape(0);
  std::optional<int64_t> groups = n.intAttr("num_groups");
  int64_t channels = shape[1];
  if (!groups || *groups < 1 || channels % *groups != 0) {
    return n.fail("num_groups must be a positive divisor of the channel "
                  "count (" +
                  llvm::Twine(channels) + ")");
  }
  bool perChannel = n.opset() >= 21;
  int64_t expected = perChannel ? channels : *groups;
  for (unsigned i : {1u, 2u}) {
    if (n.shape(i)[0] != expected) {
      return n.fail("input " + llvm::Twine(i) + " must hold " +
                    llvm::Twine(expected) +
                    (perChannel ? " values (one per channel)"
                                : " values (one per group)"));
    }
  }
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  Type acc = element.isF64() ? element : b.getF32Type();
  int64_t g = *groups;
  int64_t per = channels / g;
  int64_t pixels = 1;
  for (int64_t d : shape.drop_front(2)) {
    pixels *= d;
  }
  SmallVector<int64_t> grouped = {shape[0], g, per, pixels};
  Value x = reshape(b, loc, convertTensor(b, loc, n.in(0), acc), grouped);
  SmallVector<int64_t> axes = {2, 3};
  double epsilon = n.floatAttr("epsilon", 1e-5);
  // LayerNormalization's statistics per (n, g), kept as (N, G, 1, 1).
  auto [mean, invStd] = acc.isF64()
                            ? twoPassStatistics(b, loc, x, axes, epsilon)
                            : onePassStatistics(b, loc, x, axes, epsilon);
  // Scale and bias broadcast over (1, G, 1, 1) or (1, G, C / G, 1).
  SmallVector<int64_t> paramShape = {1, g, perChannel ? per : 1, 1};
  Value scale =
      reshape(b, loc, convertTensor(b, loc, n.in(1), acc), paramShape);
  Value bias = reshape(b, loc, convertTensor(b, loc, n.in(2), acc), paramShape);
  Value y =
      elementwise(b, loc, {x, mean, invStd, scale, bias}, grouped, element,
                  [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                    Value v = arith::SubFOp::create(nb, l, a[0], a[1]);
                    v = arith::MulFOp::create(nb, l, v, a[2]);
                    v = arith::AddFOp::create(
                        nb, l, arith::MulFOp::create(nb, l, v, a[3]), a[4]);
                    return convertScalar(nb, l, v, element);
                  });
  return n.replace(reshape(b, loc, y, shape));
}

/// CumSum along an axis read at run time: one linalg.generic with a
/// parallel loop per dimension and a reduction loop k_d over a window that
/// spans the axis (1 elsewhere). The body reads the input at the window's
/// position along the axis, at the result's elsewhere (always in bounds),
/// and adds it where the window's position precedes the result's.
LogicalResult lowerCumSumRuntime(Node &n, OpFoldResult axisValue) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = n.rank(0);
  if (rank == 0) {
    return n.fail("expects an input of rank 1 or more");
  }
  Value x = n.in(0);
  Type element = n.elem(0);
  bool exclusive = n.intAttr("exclusive", 0) != 0;
  bool reverse = n.intAttr("reverse", 0) != 0;
  RuntimeAxes axes = runtimeAxes(n, x, {axisValue});
  // The window reads along the axis; the result keeps every dimension.
  axes.kept = n.dims(0);
  MLIRContext *context = b.getContext();
  SmallVector<AffineExpr> resultExprs, windowExprs;
  for (int64_t d = 0; d < rank; ++d) {
    resultExprs.push_back(b.getAffineDimExpr(d));
    windowExprs.push_back(b.getAffineDimExpr(rank + d));
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(2 * rank, 0, windowExprs, context),
      AffineMap::get(2 * rank, 0, resultExprs, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(rank, utils::IteratorType::reduction);
  Value window = windowOf(b, loc, x, axes.window);
  Value init = filledTo(b, loc, axes.kept, scalar(b, loc, element, 0));
  arith::CmpIPredicate pred =
      reverse
          ? (exclusive ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::sge)
          : (exclusive ? arith::CmpIPredicate::slt : arith::CmpIPredicate::sle);
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{window}, ValueRange{init},
      maps, iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value zero = arith::ConstantIndexOp::create(nb, l, 0);
        SmallVector<Value> at;
        Value i = zero, j = zero;
        for (int64_t d = 0; d < rank; ++d) {
          Value o = linalg::IndexOp::create(nb, l, d);
          Value k = linalg::IndexOp::create(nb, l, rank + d);
          at.push_back(arith::SelectOp::create(nb, l, axes.reduced[d], k, o));
          i = arith::AddIOp::create(
              nb, l, i,
              arith::SelectOp::create(nb, l, axes.reduced[d], o, zero));
          // k is 0 off the axis.
          j = arith::AddIOp::create(nb, l, j, k);
        }
        Value v = tensor::ExtractOp::create(nb, l, x, at);
        Value take = arith::CmpIOp::create(nb, l, pred, j, i);
        v = arith::SelectOp::create(nb, l, take, v, scalar(nb, l, element, 0));
        linalg::YieldOp::create(nb, l, add(nb, l, args[1], v));
      });
  return n.replace(op->getResult(0), {n.isUnsigned(0)});
}

LogicalResult lowerCumSum(Node &n) {
  FailureOr<SmallVector<OpFoldResult>> axisValues = n.hostInts(1, "axis");
  if (failed(axisValues)) {
    return failure();
  }
  if (axisValues->size() != 1) {
    return n.fail("input 1 (axis) must hold one value; it holds " +
                  llvm::Twine(axisValues->size()));
  }
  std::optional<int64_t> axisValue = getConstantIntValue((*axisValues)[0]);
  if (!axisValue) {
    return lowerCumSumRuntime(n, (*axisValues)[0]);
  }
  int64_t rank = n.rank(0);
  FailureOr<int64_t> axis = n.axis(*axisValue, rank);
  if (failed(axis)) {
    return failure();
  }
  bool exclusive = n.intAttr("exclusive", 0) != 0;
  bool reverse = n.intAttr("reverse", 0) != 0;
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  // Iteration space: the output dims plus one reduction dim j over the
  // axis; out[.., i, ..] += in[.., j, ..] where j precedes i.
  ArrayRef<int64_t> shape = n.shape(0);
  SmallVector<AffineExpr> inExprs, outExprs;
  for (int64_t d = 0; d < rank; ++d) {
    outExprs.push_back(b.getAffineDimExpr(d));
    inExprs.push_back(d == *axis ? b.getAffineDimExpr(rank)
                                 : b.getAffineDimExpr(d));
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank + 1, 0, inExprs, b.getContext()),
      AffineMap::get(rank + 1, 0, outExprs, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value init = filled(b, loc, shape, scalar(b, loc, element, 0));
  int64_t axisDim = *axis;
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{n.in(0)},
      ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value i = linalg::IndexOp::create(nb, l, axisDim);
        Value j = linalg::IndexOp::create(nb, l, rank);
        arith::CmpIPredicate pred =
            reverse ? (exclusive ? arith::CmpIPredicate::sgt
                                 : arith::CmpIPredicate::sge)
                    : (exclusive ? arith::CmpIPredicate::slt
                                 : arith::CmpIPredicate::sle);
        Value take = arith::CmpIOp::create(nb, l, pred, j, i);
        Value v = arith::SelectOp::create(nb, l, take, args[0],
                                          scalar(nb, l, element, 0));
        linalg::YieldOp::create(nb, l, add(nb, l, args[1], v));
      });
  return n.replace(op->getResult(0), {n.isUnsigned(0)});
}


/// log(softmax(x)) along `axis`, computed as x - max - log(sum(exp(x - max))).
Value logSoftmax(OpBuilder &b, Location loc, Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  Type acc = accumulatorType(b, element);
  ArrayRef<int64_t> shape = type.getShape();
  Value wide = convertTensor(b, loc, x, acc);
  Value max = reduceKeep(b, loc, wide, {axis}, acc, Reduction::Max, false,
                         nullptr);
  Value shifted = elementwise(
      b, loc, {wide, max}, shape, acc,
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::SubFOp::create(nb, l, a[0], a[1]);
      });
  Value exps = elementwise(b, loc, shifted, shape, acc,
                           [](OpBuilder &nb, Location l, ValueRange a) {
                             return expOf(nb, l, a[0]);
                           });
  Value sum = reduceKeep(b, loc, exps, {axis}, acc, Reduction::Sum, false,
                         nullptr);
  Value result = elementwise(
      b, loc, {shifted, sum}, shape, acc,
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::SubFOp::create(nb, l, a[0], logOf(nb, l, a[1]));
      });
  return convertTensor(b, loc, result, element);
}

/// NegativeLogLikelihoodLoss of log-probabilities `input` (N, C, d...)
/// against class indices `target` (N, d...), optionally weighted per class.
FailureOr<Value> nllLoss(Node &n, Value input, Value target, Value weight) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  auto inputType = cast<RankedTensorType>(input.getType());
  auto targetType = cast<RankedTensorType>(target.getType());
  Type element = inputType.getElementType();
  int64_t classes = inputType.getDimSize(1);
  if (targetType.getRank() != inputType.getRank() - 1) {
    return n.fail("the target's rank must be the input's minus one");
  }
  // The target is (N, d...) of the input's (N, C, d...); the weight one
  // per class.
  SmallVector<int64_t> expected(inputType.getShape());
  expected.erase(expected.begin() + 1);
  if (targetType.getShape() != ArrayRef<int64_t>(expected)) {
    return n.fail("the target's shape is not the input's without its class "
                  "dimension");
  }
  if (weight &&
      cast<RankedTensorType>(weight.getType()).getNumElements() != classes) {
    return n.fail("the weight does not hold one value per class (" +
                  llvm::Twine(classes) + ")");
  }
  std::optional<int64_t> ignore = n.intAttr("ignore_index");
  StringRef reduction = n.stringAttr("reduction").value_or("mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    return n.fail("reduction '" + reduction + "' is not supported");
  }
  Type targetElement = targetType.getElementType();
  int64_t rank = targetType.getRank();
  auto clampedIndex = [&](OpBuilder &nb, Location l, Value t) -> Value {
    // An ignored target may be any value: read class 0 instead.
    Value index = arith::IndexCastOp::create(nb, l, nb.getIndexType(), t);
    if (ignore) {
      Value ignored = arith::CmpIOp::create(
          nb, l, arith::CmpIPredicate::eq, t,
          scalar(nb, l, targetElement, *ignore));
      index = arith::SelectOp::create(
          nb, l, ignored, arith::ConstantIndexOp::create(nb, l, 0), index);
    }
    Value zero = arith::ConstantIndexOp::create(nb, l, 0);
    Value last = arith::ConstantIndexOp::create(nb, l, classes - 1);
    index = arith::MaxSIOp::create(nb, l, index, zero);
    return arith::MinSIOp::create(nb, l, index, last);
  };
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  auto resultType = RankedTensorType::get(targetType.getShape(), element);
  // The weight of each element: 0 where ignored.
  Value weights = generic(
      b, loc, target, identity, resultType,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value w = scalar(nb, l, element, 1.0);
        if (weight) {
          w = tensor::ExtractOp::create(nb, l, weight,
                                        ValueRange{clampedIndex(nb, l, a[0])});
        }
        if (ignore) {
          Value ignored = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::eq, a[0],
              scalar(nb, l, targetElement, *ignore));
          w = arith::SelectOp::create(nb, l, ignored,
                                      scalar(nb, l, element, 0.0), w);
        }
        return w;
      });
  Value losses = generic(
      b, loc, {target, weights}, {identity, identity}, resultType,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        SmallVector<Value> at;
        at.push_back(linalg::IndexOp::create(nb, l, 0));
        at.push_back(clampedIndex(nb, l, a[0]));
        for (int64_t d = 1; d < rank; ++d) {
          at.push_back(linalg::IndexOp::create(nb, l, d));
        }
        Value logp = tensor::ExtractOp::create(nb, l, input, at);
        return arith::NegFOp::create(
            nb, l, arith::MulFOp::create(nb, l, logp, a[1]));
      });
  if (reduction == "none") {
    return losses;
  }
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < rank; ++d) {
    all.push_back(d);
  }
  auto sumAll = [&](Value v) {
    return reduce(b, loc, v, all, scalar(b, loc, element, 0.0),
                  [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                    return arith::AddFOp::create(nb, l, a[1], a[0]);
                  });
  };
  Value total = sumAll(losses);
  if (reduction == "sum") {
    return total;
  }
  Value count = sumAll(weights);
  return elementwise(b, loc, {total, count}, {}, element,
                     [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       return arith::DivFOp::create(nb, l, a[0], a[1]);
                     });
}

LogicalResult lowerNLLLoss(Node &n) {
  if (!isFloat(n.elem(0))) {
    return n.fail("expects floating-point log-probabilities");
  }
  FailureOr<Value> loss = nllLoss(n, n.in(0), n.in(1), n.in(2));
  if (failed(loss)) {
    return failure();
  }
  return n.replace(*loss);
}

LogicalResult lowerSoftmaxCrossEntropyLoss(Node &n) {
  if (!isFloat(n.elem(0))) {
    return n.fail("expects floating-point scores");
  }
  if (n.rank(0) < 2) {
    return n.fail("scores must have rank 2 or more");
  }
  Value logp = logSoftmax(n.b, n.loc, n.in(0), 1);
  FailureOr<Value> loss = nllLoss(n, logp, n.in(1), n.in(2));
  if (failed(loss)) {
    return failure();
  }
  if (n.numOutputs() > 1) {
    return n.replace({*loss, logp});
  }
  return n.replace(*loss);
}

/// TopK by ranks, for a K known at run time only (or one too large to
/// unroll): each element's rank along the axis (how many elements precede
/// it: larger values first, or smaller ones, equal values by index, NaN
/// the largest so that the ranks are a permutation), then result j along
/// the axis is the element of rank j. Two generics, quadratic in the axis
/// length rather than in K times it.
LogicalResult lowerTopKByRank(Node &n, int64_t axis, OpFoldResult k) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  int64_t rank = n.rank(0);
  int64_t dim = n.shape(0)[axis];
  // A constant K was checked at compile time.
  if (!getConstantIntValue(k)) {
    Value kValue = indexValueOf(b, loc, k);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    n.check(
        arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, kValue,
                                  zero),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, kValue,
                                  arith::ConstantIndexOp::create(b, loc, dim))),
        "K is outside [0, " + llvm::Twine(dim) + "] at run time");
  }
  bool largest = n.intAttr("largest", 1) != 0;
  bool isUnsigned = n.isUnsigned(0);
  Type element = n.elem(0);
  Type i64 = b.getI64Type();
  Value x = n.in(0);
  MLIRContext *context = b.getContext();
  // Loops: the input's (or result's) dimensions, then one along the axis.
  SmallVector<AffineExpr> here, along;
  for (int64_t d = 0; d < rank; ++d) {
    here.push_back(b.getAffineDimExpr(d));
    along.push_back(d == axis ? b.getAffineDimExpr(rank)
                              : b.getAffineDimExpr(d));
  }
  AffineMap hereMap = AffineMap::get(rank + 1, 0, here, context);
  AffineMap alongMap = AffineMap::get(rank + 1, 0, along, context);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  // Whether `c` comes before `a` in the order.
  auto before = [&](OpBuilder &nb, Location l, Value c, Value a) -> Value {
    if (!isFloat(element)) {
      arith::CmpIPredicate pred =
          largest ? (isUnsigned ? arith::CmpIPredicate::ugt
                                : arith::CmpIPredicate::sgt)
                  : (isUnsigned ? arith::CmpIPredicate::ult
                                : arith::CmpIPredicate::slt);
      return arith::CmpIOp::create(nb, l, pred, c, a);
    }
    auto isNaN = [&](Value v) -> Value {
      return arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v);
    };
    Value ordered = arith::CmpFOp::create(
        nb, l, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
        c, a);
    Value notNaN =
        arith::XOrIOp::create(nb, l, isNaN(largest ? a : c),
                              arith::ConstantIntOp::create(nb, l, 1, 1));
    return arith::OrIOp::create(
        nb, l, ordered,
        arith::AndIOp::create(nb, l, isNaN(largest ? c : a), notNaN));
  };
  auto same = [&](OpBuilder &nb, Location l, Value c, Value a) -> Value {
    if (!isFloat(element)) {
      return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, c, a);
    }
    Value bothNaN = arith::AndIOp::create(
        nb, l, arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, c, c),
        arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, a, a));
    return arith::OrIOp::create(
        nb, l, arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, c, a),
        bothNaN);
  };
  Value ranksInit = filledTo(b, loc, n.dims(0), scalar(b, loc, i64, 0));
  auto ranks = linalg::GenericOp::create(
      b, loc, TypeRange{ranksInit.getType()}, ValueRange{x, x},
      ValueRange{ranksInit}, ArrayRef<AffineMap>{hereMap, alongMap, hereMap},
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value i = linalg::IndexOp::create(nb, l, axis);
        Value j = linalg::IndexOp::create(nb, l, rank);
        Value earlier =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, j, i);
        Value precedes = arith::OrIOp::create(
            nb, l, before(nb, l, args[1], args[0]),
            arith::AndIOp::create(nb, l, same(nb, l, args[1], args[0]),
                                  earlier));
        Value one = arith::ExtUIOp::create(nb, l, i64, precedes);
        linalg::YieldOp::create(
            nb, l, arith::AddIOp::create(nb, l, args[2], one).getResult());
      });
  SmallVector<OpFoldResult> sizes = n.dims(0);
  sizes[axis] = k;
  Value valuesInit = filledTo(b, loc, sizes, scalar(b, loc, element, 0));
  Value indicesInit = filledTo(b, loc, sizes, scalar(b, loc, i64, 0));
  auto picked = linalg::GenericOp::create(
      b, loc, TypeRange{valuesInit.getType(), indicesInit.getType()},
      ValueRange{x, ranks->getResult(0)}, ValueRange{valuesInit, indicesInit},
      ArrayRef<AffineMap>{alongMap, alongMap, hereMap, hereMap}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value position = arith::IndexCastOp::create(
            nb, l, i64, linalg::IndexOp::create(nb, l, axis));
        Value source = arith::IndexCastOp::create(
            nb, l, i64, linalg::IndexOp::create(nb, l, rank));
        Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                          args[1], position);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, hit, args[0], args[2]),
                       arith::SelectOp::create(nb, l, hit, source, args[3])});
      });
  return n.replace({picked->getResult(0), picked->getResult(1)},
                   {isUnsigned, false});
}

/// TopK with a constant K: K rounds, each taking the extreme of what the
/// earlier rounds left (ties: the lower index first).
LogicalResult lowerTopK(Node &n) {
  int64_t rank = n.rank(0);
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", -1), rank);
  if (failed(axis)) {
    return failure();
  }
  int64_t k = 0;
  if (n.opset() < 10) {
    k = n.intAttr("k", 0);
  } else {
    FailureOr<SmallVector<OpFoldResult>> values = n.hostInts(1, "K");
    if (failed(values)) {
      return failure();
    }
    if (values->size() != 1) {
      return n.fail("input 1 (K) must hold one value; it holds " +
                    llvm::Twine(values->size()));
    }
    std::optional<int64_t> known = getConstantIntValue((*values)[0]);
    if (!known) {
      return lowerTopKByRank(n, *axis, (*values)[0]);
    }
    k = *known;
  }
  int64_t dim = n.shape(0)[*axis];
  if (k < 0 || k > dim) {
    return n.fail("K = " + llvm::Twine(k) + " is out of range for a "
                  "dimension of " + llvm::Twine(dim));
  }
  if (k > 64) {
    return lowerTopKByRank(n, *axis, n.b.getIndexAttr(k));
  }
  bool largest = n.intAttr("largest", 1) != 0;
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type element = n.elem(0);
  bool isUnsigned = n.isUnsigned(0);
  bool floating = isFloat(element);
  Value x = n.in(0);
  ArrayRef<int64_t> shape = n.shape(0);
  Type i64 = b.getI64Type();
  int64_t axisValue = *axis;
  SmallVector<Value> values, indices;
  for (int64_t round = 0; round < k; ++round) {
    // x with the indices taken so far replaced by the worst value.
    SmallVector<Value> inputs = {x};
    inputs.append(indices.begin(), indices.end());
    Value masked = elementwise(
        b, loc, inputs, shape, element,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value position = arith::IndexCastOp::create(
              nb, l, i64, linalg::IndexOp::create(nb, l, axisValue));
          Value taken;
          for (Value index : a.drop_front()) {
            Value same = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                               index, position);
            taken = taken ? arith::OrIOp::create(nb, l, taken, same).getResult()
                          : same;
          }
          if (!taken) {
            return a[0];
          }
          Value worst;
          if (isUnsigned) {
            worst = largest ? scalar(nb, l, element, 0)
                            : arith::ConstantOp::create(
                                  nb, l, nb.getIntegerAttr(
                                             element, APInt::getMaxValue(
                                                          element
                                                              .getIntOrFloatBitWidth())))
                                  .getResult();
          } else {
            worst = largest ? lowest(nb, l, element) : highest(nb, l, element);
          }
          return arith::SelectOp::create(nb, l, taken, worst, a[0]);
        });
    Value extreme = reduceKeep(b, loc, masked, {axisValue}, element,
                               largest ? Reduction::Max : Reduction::Min,
                               isUnsigned, nullptr);
    Value candidates = elementwise(
        b, loc, {masked, extreme}, shape, i64,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value equal = floating
                            ? arith::CmpFOp::create(
                                  nb, l, arith::CmpFPredicate::OEQ, a[0], a[1])
                                  .getResult()
                            : arith::CmpIOp::create(
                                  nb, l, arith::CmpIPredicate::eq, a[0], a[1])
                                  .getResult();
          Value position = arith::IndexCastOp::create(
              nb, l, i64, linalg::IndexOp::create(nb, l, axisValue));
          return arith::SelectOp::create(nb, l, equal, position,
                                         scalar(nb, l, i64, dim));
        });
    Value index = reduceKeep(b, loc, candidates, {axisValue}, i64,
                             Reduction::Min, false, nullptr);
    values.push_back(extreme);
    indices.push_back(index);
  }
  if (k == 0) {
    return n.fail("K = 0 gives empty results");
  }
  return n.replace({concat(b, loc, values, axisValue),
                    concat(b, loc, indices, axisValue)},
                   {isUnsigned, false});
}

} // namespace

void mlir::strata::onnx::addReductionLowerings(LoweringTable &table) {
  table["ReduceSum"] = [](Node &n) { return lowerReduce(n, Reduction::Sum); };
  table["ReduceMean"] = [](Node &n) {
    return lowerReduce(n, Reduction::Mean);
  };
  table["ReduceMax"] = [](Node &n) { return lowerReduce(n, Reduction::Max); };
  table["ReduceMin"] = [](Node &n) { return lowerReduce(n, Reduction::Min); };
  table["ReduceProd"] = [](Node &n) {
    return lowerReduce(n, Reduction::Prod);
  };
  table["ReduceL1"] = [](Node &n) { return lowerReduce(n, Reduction::L1); };
  table["ReduceL2"] = [](Node &n) { return lowerReduce(n, Reduction::L2); };
  table["ReduceLogSum"] = [](Node &n) {
    return lowerReduce(n, Reduction::LogSum);
  };
  table["ReduceLogSumExp"] = [](Node &n) {
    return lowerReduce(n, Reduction::LogSumExp);
  };
  table["ReduceSumSquare"] = [](Node &n) {
    return lowerReduce(n, Reduction::SumSquare);
  };
  table["ArgMax"] = [](Node &n) { return lowerArgExtreme(n, true); };
  table["ArgMin"] = [](Node &n) { return lowerArgExtreme(n, false); };
  table["Softmax"] = [](Node &n) {
    return lowerSoftmax(n, SoftmaxKind::Softmax);
  };
  table["LogSoftmax"] = [](Node &n) {
    return lowerSoftmax(n, SoftmaxKind::LogSoftmax);
  };
  table["Hardmax"] = [](Node &n) {
    return lowerSoftmax(n, SoftmaxKind::Hardmax);
  };
  table["LayerNormalization"] = lowerLayerNorm;
  table["GroupNormalization"] = lowerGroupNorm;
  table.allowDynamic({"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                      "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                      "ReduceLogSumExp", "ReduceSumSquare", "Softmax",
                      "LogSoftmax", "LayerNormalization"});
  table["CumSum"] = lowerCumSum;
  table["TopK"] = lowerTopK;
  table["NegativeLogLikelihoodLoss"] = lowerNLLLoss;
  table["SoftmaxCrossEntropyLoss"] = lowerSoftmaxCrossEntropyLoss;
}
