// Builders.cpp - tensor builders the ONNX lowering patterns share
// (Lowering.h): broadcast elementwise generics, reductions, reshapes,
// transposes, slices, conversions, and compile-time folding of constants.

#include "Lowering.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

bool mlir::strata::onnx::isFloat(Type type) { return isa<FloatType>(type); }

Value mlir::strata::onnx::viaF32(OpBuilder &b, Location loc, Value x,
                                 function_ref<Value(Value)> fn) {
  Type type = x.getType();
  if (type.isF32()) {
    return fn(x);
  }
  Value wide = convertScalar(b, loc, x, b.getF32Type());
  return convertScalar(b, loc, fn(wide), type);
}

Value mlir::strata::onnx::expOf(OpBuilder &b, Location loc, Value x) {
  return viaF32(b, loc, x, [&](Value v) -> Value {
    return math::ExpOp::create(b, loc, v);
  });
}

Value mlir::strata::onnx::logOf(OpBuilder &b, Location loc, Value x) {
  return viaF32(b, loc, x, [&](Value v) -> Value {
    return math::LogOp::create(b, loc, v);
  });
}

SmallVector<int64_t> mlir::strata::onnx::stridesOf(ArrayRef<int64_t> shape) {
  // A shape without elements may have other dimensions whose product
  // overflows int64 (found by onnx_fuzzer: Gather indices of 15
  // dimensions, two of them 0). No index reads such a tensor, so its
  // strides saturate instead of overflowing.
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
    if (__builtin_mul_overflow(strides[i + 1], shape[i + 1], &strides[i])) {
      strides[i] = std::numeric_limits<int64_t>::max();
    }
  }
  return strides;
}

FailureOr<SmallVector<int64_t>>
mlir::strata::onnx::broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> shape : shapes) {
    rank = std::max(rank, shape.size());
  }
  // A dynamic dimension broadcasts as a dimension that is not 1: it meets
  // a 1 (which broadcasts to it) or its own size, which the run-time loop
  // checks compare (a `?` that is 1 at run time against a larger size is
  // refused there, never read out of bounds).
  SmallVector<int64_t> result(rank, 1);
  for (ArrayRef<int64_t> shape : shapes) {
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t &dim = result[rank - shape.size() + i];
      if (shape[i] == dim || shape[i] == 1) {
        continue;
      }
      if (ShapedType::isDynamic(shape[i])) {
        continue;
      }
      if (dim != 1 && !ShapedType::isDynamic(dim)) {
        return failure();
      }
      dim = shape[i];
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t &dim = result[rank - shape.size() + i];
      if (ShapedType::isDynamic(shape[i]) && dim == 1) {
        dim = ShapedType::kDynamic;
      }
    }
  }
  return result;
}

Value mlir::strata::onnx::constant(OpBuilder &b, Location loc,
                                   DenseElementsAttr value) {
  return arith::ConstantOp::create(b, loc, value);
}

/// `value` for an integer constant: truncated toward zero and saturated
/// to int64_t, NaN as 0 (the cast of a double outside int64_t's range is
/// undefined; an attribute such as Pad's value may hold 1e30 for an
/// integer tensor).
static int64_t integerValue(double value) {
  if (std::isnan(value)) {
    return 0;
  }
  if (value >= 0x1p63) {
    return std::numeric_limits<int64_t>::max();
  }
  if (value <= -0x1p63) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(value);
}

Value mlir::strata::onnx::scalar(OpBuilder &b, Location loc, Type type,
                                 double value) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  }
  if (type.isIndex()) {
    return arith::ConstantIndexOp::create(b, loc, integerValue(value));
  }
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(type, integerValue(value)));
}

Value mlir::strata::onnx::splat(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> shape, Type type,
                                double value) {
  auto tensorType = RankedTensorType::get(shape, type);
  Attribute element;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    element = b.getFloatAttr(floatType, value);
  } else {
    element = b.getIntegerAttr(type, integerValue(value));
  }
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(tensorType, element));
}

Value mlir::strata::onnx::filled(OpBuilder &b, Location loc,
                                 ArrayRef<int64_t> shape, Value scalarValue) {
  Value empty =
      tensor::EmptyOp::create(b, loc, shape, scalarValue.getType());
  return linalg::FillOp::create(b, loc, scalarValue, empty).getResult(0);
}

Value mlir::strata::onnx::lowest(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType,
                       APFloat::getInf(floatType.getFloatSemantics(), true)));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(type, width == 1 ? APInt(1, 0)
                                        : APInt::getSignedMinValue(width)));
}

Value mlir::strata::onnx::highest(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(floatType,
                       APFloat::getInf(floatType.getFloatSemantics(), false)));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(type, width == 1 ? APInt(1, 1)
                                        : APInt::getSignedMaxValue(width)));
}

namespace {

/// Calls `fn` with each multi-index of `shape` in row-major order.
void forEachIndex(ArrayRef<int64_t> shape,
                  function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    count *= dim;
  }
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    fn(index);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) {
        break;
      }
      index[d] = 0;
    }
  }
}

/// Whether `shape` has at most kFoldLimit elements, its product computed
/// without overflow (a shape made from a model's numbers, such as Tile's
/// repeats, may have a product beyond 2^63).
bool fitsFoldLimit(ArrayRef<int64_t> shape) {
  if (llvm::any_of(shape, [](int64_t dim) { return dim < 0; })) {
    return false;
  }
  if (llvm::is_contained(shape, 0)) {
    return true;
  }
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (__builtin_mul_overflow(count, dim, &count) || count > kFoldLimit) {
      return false;
    }
  }
  return true;
}

} // namespace

DenseElementsAttr mlir::strata::onnx::constantOf(Value value) {
  DenseElementsAttr attr;
  if (value && matchPattern(value, m_Constant(&attr))) {
    return attr;
  }
  return {};
}

SmallVector<int64_t> mlir::strata::onnx::intsOf(DenseElementsAttr attr,
                                                bool isUnsigned) {
  SmallVector<int64_t> values;
  values.reserve(attr.getNumElements());
  for (const APInt &v : attr.getValues<APInt>()) {
    values.push_back(isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue());
  }
  return values;
}

Value mlir::strata::onnx::flipTopBit(OpBuilder &b, Location loc, Value v,
                                     bool isUnsigned) {
  if (!isUnsigned) {
    return v;
  }
  return arith::XOrIOp::create(b, loc, v,
                               scalar(b, loc, b.getIntegerType(8), -128));
}

Value mlir::strata::onnx::windowRows(OpBuilder &b, Location loc, Value nhwc,
                                     const ConvWindow &window, int64_t kh,
                                     int64_t kw, bool isUnsigned) {
  auto type = cast<RankedTensorType>(nhwc.getType());
  int64_t batch = type.getDimSize(0), channels = type.getDimSize(3);
  int64_t oh = window.out[0], ow = window.out[1];
  int64_t sh = window.strides[0], sw = window.strides[1];
  int64_t dh = window.dilations[0], dw = window.dilations[1];
  int64_t rows = batch * oh * ow, depth = kh * kw * channels;
  MLIRContext *context = b.getContext();
  Type i8 = b.getIntegerType(8);
  auto body = [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
    return flipTopBit(nb, l, v[0], isUnsigned);
  };
  if (kh == 1 && kw == 1) {
    if (sh == 1 && sw == 1 && !isUnsigned && type.getDimSize(1) == oh &&
        type.getDimSize(2) == ow) {
      // The pixels themselves are the rows.
      return tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({rows, depth}, i8), nhwc,
          ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
    }
    AffineExpr n, y, x, ch;
    bindDims(context, n, y, x, ch);
    AffineMap map = AffineMap::get(4, 0, {n, y * sh, x * sw, ch}, context);
    Value cols =
        generic(b, loc, {nhwc}, {map},
                RankedTensorType::get({batch, oh, ow, channels}, i8), body);
    return tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({rows, depth}, i8), cols,
        ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  }
  AffineExpr n, y, x, ky, kx, ch;
  bindDims(context, n, y, x, ky, kx, ch);
  AffineMap map = AffineMap::get(
      6, 0, {n, y * sh + ky * dh, x * sw + kx * dw, ch}, context);
  Value cols = generic(
      b, loc, {nhwc}, {map},
      RankedTensorType::get({batch, oh, ow, kh, kw, channels}, i8), body);
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({rows, depth}, i8), cols,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
}

DenseElementsAttr mlir::strata::onnx::gatherConstant(
    DenseElementsAttr source, RankedTensorType type,
    function_ref<int64_t(ArrayRef<int64_t>)> indexOf) {
  if (source.isSplat()) {
    return DenseElementsAttr::get(type, source.getSplatValue<Attribute>());
  }
  int64_t count = type.getNumElements();
  if (count == 0) {
    return DenseElementsAttr::get(type, ArrayRef<Attribute>{});
  }
  Type element = type.getElementType();
  if (element.isInteger(1)) {
    SmallVector<bool> from(source.getValues<bool>());
    SmallVector<bool> to;
    to.reserve(count);
    forEachIndex(type.getShape(), [&](ArrayRef<int64_t> index) {
      to.push_back(from[indexOf(index)]);
    });
    return DenseElementsAttr::get(type, to);
  }
  size_t width = element.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = source.getRawData();
  std::vector<char> out(count * width);
  int64_t n = 0;
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> index) {
    std::memcpy(&out[n++ * width], &raw[indexOf(index) * width], width);
  });
  return DenseElementsAttr::getFromRawBuffer(type, out);
}

DenseElementsAttr mlir::strata::onnx::foldGeneric(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      op->getNumResults() != 1) {
    return {};
  }
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !fitsFoldLimit(type.getShape())) {
    return {};
  }
  SmallVector<DenseElementsAttr> inputs;
  for (Value input : op.getDpsInputs()) {
    DenseElementsAttr attr = constantOf(input);
    if (!attr ||
        (!attr.isSplat() && !fitsFoldLimit(attr.getType().getShape()))) {
      return {};
    }
    inputs.push_back(attr);
  }
  Block &body = op.getRegion().front();
  if (!body.getArguments().back().use_empty()) {
    return {};
  }
  int64_t bodyOps =
      std::max<int64_t>(1, std::distance(body.without_terminator().begin(),
                                         body.without_terminator().end()));
  if (type.getNumElements() * bodyOps > kFoldWorkLimit) {
    return {};
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<int64_t>> strides;
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr input : inputs) {
    strides.push_back(stridesOf(input.getType().getShape()));
    if (input.isSplat()) {
      values.push_back({input.getSplatValue<Attribute>()});
    } else {
      values.push_back(SmallVector<Attribute>(input.getValues<Attribute>()));
    }
  }
  SmallVector<Attribute> results;
  results.reserve(type.getNumElements());
  bool ok = true;
  DenseMap<Value, Attribute> env;
  Builder builder(op.getContext());
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> index) {
    if (!ok) {
      return;
    }
    env.clear();
    for (auto [i, input] : llvm::enumerate(inputs)) {
      int64_t linear = 0;
      if (!input.isSplat()) {
        // A generic whose maps read outside an input (which the verifier
        // refuses) is not folded.
        ArrayRef<int64_t> inputShape = input.getType().getShape();
        SmallVector<int64_t, 4> at = maps[i].compose(index);
        if (at.size() != inputShape.size()) {
          ok = false;
          return;
        }
        for (auto [d, v] : llvm::enumerate(at)) {
          if (v < 0 || v >= inputShape[d]) {
            ok = false;
            return;
          }
          linear += v * strides[i][d];
        }
      }
      env[body.getArgument(i)] = values[i][input.isSplat() ? 0 : linear];
    }
    for (Operation &inner : body.without_terminator()) {
      if (auto indexOp = dyn_cast<linalg::IndexOp>(inner)) {
        env[indexOp] = builder.getIndexAttr(index[indexOp.getDim()]);
        continue;
      }
      SmallVector<Attribute> operands;
      for (Value operand : inner.getOperands()) {
        Attribute attr = env.lookup(operand);
        if (!attr) {
          // A value from outside the body: only constants fold.
          matchPattern(operand, m_Constant(&attr));
        }
        if (!attr) {
          ok = false;
          return;
        }
        operands.push_back(attr);
      }
      SmallVector<OpFoldResult> folded;
      if (failed(inner.fold(operands, folded)) ||
          folded.size() != inner.getNumResults()) {
        ok = false;
        return;
      }
      for (auto [result, fold] : llvm::zip(inner.getResults(), folded)) {
        Attribute attr = dyn_cast<Attribute>(fold);
        if (!attr) {
          attr = env.lookup(cast<Value>(fold));
        }
        if (!attr) {
          ok = false;
          return;
        }
        env[result] = attr;
      }
    }
    Attribute yielded = env.lookup(body.getTerminator()->getOperand(0));
    if (!yielded || !isa<IntegerAttr, FloatAttr>(yielded) ||
        cast<TypedAttr>(yielded).getType() != type.getElementType()) {
      ok = false;
      return;
    }
    results.push_back(yielded);
  });
  if (!ok) {
    return {};
  }
  return DenseElementsAttr::get(type, results);
}

namespace {

/// Replaces a just-built generic by its folded value when it folds.
Value foldOrKeep(OpBuilder &b, Location loc, linalg::GenericOp op) {
  if (DenseElementsAttr folded = foldGeneric(op)) {
    Operation *init = op.getDpsInits()[0].getDefiningOp();
    op->erase();
    if (init && init->use_empty()) {
      init->erase();
    }
    return constant(b, loc, folded);
  }
  return op->getResult(0);
}

} // namespace

namespace {

/// Elementwise math on host vectors (shape arithmetic: a dimension divided
/// by the head count, Cast, Equal/Where on a shape), computed element by
/// element on host scalars with the same body; null when an input is not a
/// host vector or none is computed (constants fold as generics).
Value hostElementwise(OpBuilder &b, Location loc, ValueRange inputs,
                      ArrayRef<int64_t> shape, Type resultElement,
                      BodyFn body) {
  if (shape.size() > 1 || llvm::is_contained(shape, ShapedType::kDynamic) ||
      !llvm::any_of(inputs, isComputedHostVector)) {
    return {};
  }
  int64_t count = shape.empty() ? 1 : shape[0];
  SmallVector<SmallVector<OpFoldResult>> elements;
  for (Value input : inputs) {
    std::optional<SmallVector<OpFoldResult>> values = hostElements(input);
    if (!values) {
      return {};
    }
    elements.push_back(std::move(*values));
  }
  SmallVector<OpFoldResult> results;
  for (int64_t e = 0; e < count; ++e) {
    SmallVector<Value> args;
    for (auto [input, values] : llvm::zip(inputs, elements)) {
      // A one-element input broadcasts.
      OpFoldResult element = values.size() == 1 ? values[0] : values[e];
      args.push_back(hostScalar(
          b, loc, cast<RankedTensorType>(input.getType()).getElementType(),
          element));
    }
    results.push_back(simplifyHostScalar(body(b, loc, args)));
  }
  return hostVector(b, loc, RankedTensorType::get(shape, resultElement),
                    results);
}

} // namespace

Value mlir::strata::onnx::generic(OpBuilder &b, Location loc, ValueRange inputs,
                                  ArrayRef<AffineMap> inputMaps,
                                  RankedTensorType type, BodyFn body,
                                  ArrayRef<OpFoldResult> sizes) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  Value init;
  if (!sizes.empty()) {
    init = emptyTensor(b, loc, sizes, type.getElementType());
  } else if (type.hasStaticShape()) {
    init =
        tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  } else {
    // Each dynamic dimension is an input's that the same loop indexes.
    SmallVector<OpFoldResult> derived;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        derived.push_back(b.getIndexAttr(type.getDimSize(d)));
        continue;
      }
      OpFoldResult size;
      for (auto [input, map] : llvm::zip(inputs, inputMaps)) {
        for (auto [j, expr] : llvm::enumerate(map.getResults())) {
          auto loop = dyn_cast<AffineDimExpr>(expr);
          if (!size && loop && loop.getPosition() == d) {
            size = dimOf(b, loc, input, j);
          }
        }
      }
      assert(size && "a dynamic result dimension no input indexes needs "
                     "its sizes given");
      derived.push_back(size);
    }
    init = emptyTensor(b, loc, derived, type.getElementType());
  }
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{type}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return foldOrKeep(b, loc, op);
}

Value mlir::strata::onnx::elementwise(OpBuilder &b, Location loc,
                                      ValueRange inputs,
                                      ArrayRef<int64_t> shape,
                                      Type resultElement, BodyFn body) {
  if (Value host =
          hostElementwise(b, loc, inputs, shape, resultElement, body)) {
    return host;
  }
  int64_t rank = shape.size();
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      int64_t d = rank - type.getRank() + i;
      exprs.push_back(type.getDimSize(i) == 1 && shape[d] != 1
                          ? b.getAffineConstantExpr(0)
                          : b.getAffineDimExpr(d));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  return generic(b, loc, inputs, maps,
                 RankedTensorType::get(shape, resultElement), body);
}

Value mlir::strata::onnx::broadcastTo(OpBuilder &b, Location loc, Value input,
                                      ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getShape() == shape) {
    return input;
  }
  return elementwise(b, loc, input, shape, type.getElementType(),
                     [](OpBuilder &, Location, ValueRange args) {
                       return args[0];
                     });
}

Value mlir::strata::onnx::broadcastToSizes(OpBuilder &b, Location loc,
                                           Value input,
                                           ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape = staticShapeOf(sizes);
  if (type.getShape() == ArrayRef<int64_t>(shape)) {
    // Nothing broadcasts; equal dynamic sizes are the consumer's to check.
    return input;
  }
  if (!llvm::is_contained(shape, ShapedType::kDynamic)) {
    return broadcastTo(b, loc, input, shape);
  }
  int64_t rank = shape.size();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t d = rank - type.getRank() + i;
    exprs.push_back(type.getDimSize(i) == 1 && shape[d] != 1
                        ? b.getAffineConstantExpr(0)
                        : b.getAffineDimExpr(d));
  }
  return generic(
      b, loc, input, AffineMap::get(rank, 0, exprs, b.getContext()),
      RankedTensorType::get(shape, type.getElementType()),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; }, sizes);
}

Value mlir::strata::onnx::reshape(OpBuilder &b, Location loc, Value input,
                                  ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getShape() == shape) {
    return input;
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  // A host vector keeps its elements (Unsqueeze of a Gather of a Shape).
  if (shape.size() <= 1 && isComputedHostVector(input) &&
      resultType.getNumElements() == type.getNumElements()) {
    return hostVector(b, loc, resultType, *hostElements(input));
  }
  // A pattern that asks for another element count gets ops the verifier
  // refuses, never a constant reshaped past its buffer.
  DenseElementsAttr attr = constantOf(input);
  if (attr && resultType.getNumElements() == type.getNumElements()) {
    return constant(b, loc, attr.reshape(resultType));
  }
  return viewAs(b, loc, input, resultType,
                getAsIndexOpFoldResult(b.getContext(), shape));
}

Value mlir::strata::onnx::transpose(OpBuilder &b, Location loc, Value input,
                                    ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(input.getType());
  bool identity = true;
  SmallVector<int64_t> shape;
  for (auto [i, p] : llvm::enumerate(perm)) {
    identity &= static_cast<int64_t>(i) == p;
    shape.push_back(type.getDimSize(p));
  }
  if (identity) {
    return input;
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (DenseElementsAttr attr = constantOf(input)) {
    SmallVector<int64_t> strides = stridesOf(type.getShape());
    return constant(b, loc,
                    gatherConstant(attr, resultType,
                                   [&](ArrayRef<int64_t> index) {
                                     int64_t linear = 0;
                                     for (size_t i = 0; i < perm.size(); ++i) {
                                       linear += index[i] * strides[perm[i]];
                                     }
                                     return linear;
                                   }));
  }
  SmallVector<OpFoldResult> sizes;
  for (int64_t p : perm) {
    sizes.push_back(dimOf(b, loc, input, p));
  }
  Value init = emptyTensor(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, input, init, perm)->getResult(0);
}

Value mlir::strata::onnx::slice(OpBuilder &b, Location loc, Value input,
                                ArrayRef<int64_t> offsets,
                                ArrayRef<int64_t> sizes,
                                ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getShape() == sizes &&
      llvm::all_of(offsets, [](int64_t o) { return o == 0; })) {
    return input;
  }
  auto resultType = RankedTensorType::get(sizes, type.getElementType());
  if (DenseElementsAttr attr = constantOf(input)) {
    SmallVector<int64_t> inStrides = stridesOf(type.getShape());
    return constant(b, loc,
                    gatherConstant(attr, resultType,
                                   [&](ArrayRef<int64_t> index) {
                                     int64_t linear = 0;
                                     for (size_t i = 0; i < index.size(); ++i) {
                                       linear += (offsets[i] +
                                                  index[i] * strides[i]) *
                                                 inStrides[i];
                                     }
                                     return linear;
                                   }));
  }
  return tensor::ExtractSliceOp::create(
      b, loc, resultType, input, getAsIndexOpFoldResult(b.getContext(), offsets),
      getAsIndexOpFoldResult(b.getContext(), sizes),
      getAsIndexOpFoldResult(b.getContext(), strides));
}

void mlir::strata::onnx::yieldFloatMulAdd(OpBuilder &b, Location loc,
                                          ValueRange args) {
  Value product = arith::MulFOp::create(b, loc, args[0], args[1]);
  linalg::YieldOp::create(
      b, loc, ValueRange{arith::AddFOp::create(b, loc, args[2], product)});
}

Value mlir::strata::onnx::concat(OpBuilder &b, Location loc, ValueRange inputs,
                                 int64_t axis) {
  if (inputs.size() == 1) {
    return inputs[0];
  }
  auto first = cast<RankedTensorType>(inputs[0].getType());
  if (llvm::any_of(inputs, [](Value input) {
        return !cast<RankedTensorType>(input.getType()).hasStaticShape();
      })) {
    return tensor::ConcatOp::create(b, loc, axis, inputs);
  }
  // Host vectors concatenate element by element (a shape assembled from
  // dimensions).
  if (first.getRank() == 1 && llvm::any_of(inputs, isComputedHostVector)) {
    SmallVector<OpFoldResult> elements;
    bool host = true;
    for (Value input : inputs) {
      std::optional<SmallVector<OpFoldResult>> values = hostElements(input);
      host &= values.has_value();
      if (values) {
        elements.append(*values);
      }
    }
    if (host && static_cast<int64_t>(elements.size()) <= kHostElements) {
      return hostVector(
          b, loc,
          RankedTensorType::get({static_cast<int64_t>(elements.size())},
                                first.getElementType()),
          elements);
    }
  }
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  SmallVector<DenseElementsAttr> constants;
  for (Value input : inputs) {
    shape[axis] += cast<RankedTensorType>(input.getType()).getDimSize(axis);
    if (DenseElementsAttr attr = constantOf(input)) {
      constants.push_back(attr);
    }
  }
  auto resultType = RankedTensorType::get(shape, first.getElementType());
  if (constants.size() == inputs.size() && fitsFoldLimit(shape)) {
    // Which input and where in it each element along the axis comes from.
    SmallVector<std::pair<int64_t, int64_t>> source;
    for (auto [i, attr] : llvm::enumerate(constants)) {
      for (int64_t j = 0; j < attr.getType().getDimSize(axis); ++j) {
        source.push_back({static_cast<int64_t>(i), j});
      }
    }
    SmallVector<Attribute> values;
    SmallVector<SmallVector<Attribute>> inputsValues;
    SmallVector<SmallVector<int64_t>> strides;
    for (DenseElementsAttr attr : constants) {
      inputsValues.push_back(SmallVector<Attribute>(attr.getValues<Attribute>()));
      strides.push_back(stridesOf(attr.getType().getShape()));
    }
    forEachIndex(shape, [&](ArrayRef<int64_t> index) {
      auto [which, at] = source[index[axis]];
      int64_t linear = 0;
      for (size_t d = 0; d < index.size(); ++d) {
        linear += (static_cast<int64_t>(d) == axis ? at : index[d]) *
                  strides[which][d];
      }
      values.push_back(inputsValues[which][linear]);
    });
    return constant(b, loc, DenseElementsAttr::get(resultType, values));
  }
  return tensor::ConcatOp::create(b, loc, axis, inputs);
}

Value mlir::strata::onnx::convertScalar(OpBuilder &b, Location loc,
                                        Value value, Type to,
                                        bool fromUnsigned, bool toUnsigned) {
  Type from = value.getType();
  if (from == to) {
    return value;
  }
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth()) {
      return arith::ExtFOp::create(b, loc, to, value);
    }
    if (fromFloat.getWidth() > toFloat.getWidth()) {
      if (fromFloat.getWidth() == 64 && toFloat.getWidth() == 16) {
        // Through f32: kernels have no f64 -> f16 routine (__truncdfhf2).
        value = arith::TruncFOp::create(b, loc, b.getF32Type(), value);
        if (toFloat.isF32()) {
          return value;
        }
      }
      return arith::TruncFOp::create(b, loc, to, value);
    }
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromFloat) {
    if (to.isInteger(1)) {
      Value zero = scalar(b, loc, from, 0);
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   zero);
    }
    if (toUnsigned) {
      return arith::FPToUIOp::create(b, loc, to, value);
    }
    return arith::FPToSIOp::create(b, loc, to, value);
  }
  if (toFloat) {
    if (fromUnsigned || from.isInteger(1)) {
      return arith::UIToFPOp::create(b, loc, to, value);
    }
    return arith::SIToFPOp::create(b, loc, to, value);
  }
  if (to.isInteger(1)) {
    Value zero = scalar(b, loc, from, 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 zero);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth) {
    if (fromUnsigned || from.isInteger(1)) {
      return arith::ExtUIOp::create(b, loc, to, value);
    }
    return arith::ExtSIOp::create(b, loc, to, value);
  }
  return arith::TruncIOp::create(b, loc, to, value);
}

Value mlir::strata::onnx::convertTensor(OpBuilder &b, Location loc,
                                        Value input, Type to,
                                        bool fromUnsigned, bool toUnsigned) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getElementType() == to) {
    return input;
  }
  return elementwise(b, loc, input, type.getShape(), to,
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return convertScalar(nb, l, args[0], to, fromUnsigned,
                                            toUnsigned);
                     });
}

mlir::strata::onnx::ReductionLoops
mlir::strata::onnx::reductionLoops(OpBuilder &b, Location loc, Value input,
                                   ArrayRef<int64_t> axes) {
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  ReductionLoops loops;
  SmallVector<AffineExpr> keptExprs;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(axes, d)) {
      loops.iterators.push_back(utils::IteratorType::reduction);
    } else {
      loops.iterators.push_back(utils::IteratorType::parallel);
      loops.keptSizes.push_back(dimOf(b, loc, input, d));
      keptExprs.push_back(b.getAffineDimExpr(d));
    }
  }
  loops.keptMap = AffineMap::get(rank, 0, keptExprs, b.getContext());
  return loops;
}

Value mlir::strata::onnx::reduce(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<int64_t> axes, Value init,
                                 BodyFn body) {
  auto type = cast<RankedTensorType>(input.getType());
  ReductionLoops loops = reductionLoops(b, loc, input, axes);
  Value out = filledTo(b, loc, loops.keptSizes, init);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(type.getRank()),
                                 loops.keptMap};
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{out.getType()}, ValueRange{input}, ValueRange{out},
      maps, loops.iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args));
      });
  return op->getResult(0);
}
