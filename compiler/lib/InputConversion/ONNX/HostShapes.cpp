// HostShapes.cpp - sizes and host vectors for the ONNX lowering
// (Lowering.h): dimensions as index values, the small integer tensors that
// shape arithmetic computes on the host (Shape -> Gather -> Concat ->
// Reshape), and the node's run-time checks.
//
// A host vector is a rank-0 or rank-1 tensor of at most kHostElements
// elements built by tensor.from_elements (or a constant). Shape arithmetic
// keeps it in that form, element by element, so the consumers (Reshape's
// shape, Slice's starts, Range's limit) read scalars, the bytecode computes
// them as index arithmetic, and canonicalization removes the tensors: no
// kernel ever sees a shape.

#include "Lowering.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

OpFoldResult mlir::strata::onnx::dimOf(OpBuilder &b, Location loc, Value value,
                                       int64_t d) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(d)) {
    return b.getIndexAttr(type.getDimSize(d));
  }
  return tensor::DimOp::create(b, loc, value, d).getResult();
}

SmallVector<OpFoldResult> mlir::strata::onnx::dimsOf(OpBuilder &b, Location loc,
                                                     Value value) {
  SmallVector<OpFoldResult> dims;
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  for (int64_t d = 0; d < rank; ++d) {
    dims.push_back(dimOf(b, loc, value, d));
  }
  return dims;
}

SmallVector<int64_t>
mlir::strata::onnx::staticShapeOf(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes) {
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  }
  return shape;
}

Value mlir::strata::onnx::indexValueOf(OpBuilder &b, Location loc,
                                       OpFoldResult size) {
  if (auto value = dyn_cast<Value>(size)) {
    if (value.getType().isIndex()) {
      return value;
    }
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
  }
  return arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(size));
}

namespace {

/// `lhs op rhs` on index sizes: folded when both are constants (with
/// `fold`, which may refuse an overflow), else built as `OpTy`.
template <typename OpTy>
OpFoldResult
sizeArith(OpBuilder &b, Location loc, OpFoldResult lhs, OpFoldResult rhs,
          function_ref<std::optional<int64_t>(int64_t, int64_t)> fold) {
  std::optional<int64_t> l = getConstantIntValue(lhs);
  std::optional<int64_t> r = getConstantIntValue(rhs);
  if (l && r) {
    if (std::optional<int64_t> folded = fold(*l, *r)) {
      return b.getIndexAttr(*folded);
    }
  }
  return OpTy::create(b, loc, indexValueOf(b, loc, lhs),
                      indexValueOf(b, loc, rhs))
      .getResult();
}

} // namespace

OpFoldResult mlir::strata::onnx::addSizes(OpBuilder &b, Location loc,
                                          OpFoldResult lhs, OpFoldResult rhs) {
  if (getConstantIntValue(rhs) == 0) {
    return lhs;
  }
  return sizeArith<arith::AddIOp>(
      b, loc, lhs, rhs, [](int64_t x, int64_t y) -> std::optional<int64_t> {
        int64_t z;
        if (__builtin_add_overflow(x, y, &z)) {
          return std::nullopt;
        }
        return z;
      });
}

OpFoldResult mlir::strata::onnx::subSizes(OpBuilder &b, Location loc,
                                          OpFoldResult lhs, OpFoldResult rhs) {
  if (getConstantIntValue(rhs) == 0) {
    return lhs;
  }
  return sizeArith<arith::SubIOp>(
      b, loc, lhs, rhs, [](int64_t x, int64_t y) -> std::optional<int64_t> {
        int64_t z;
        if (__builtin_sub_overflow(x, y, &z)) {
          return std::nullopt;
        }
        return z;
      });
}

OpFoldResult mlir::strata::onnx::mulSizes(OpBuilder &b, Location loc,
                                          OpFoldResult lhs, OpFoldResult rhs) {
  if (getConstantIntValue(lhs) == 1) {
    return rhs;
  }
  if (getConstantIntValue(rhs) == 1) {
    return lhs;
  }
  return sizeArith<arith::MulIOp>(
      b, loc, lhs, rhs, [](int64_t x, int64_t y) -> std::optional<int64_t> {
        int64_t z;
        if (__builtin_mul_overflow(x, y, &z)) {
          return std::nullopt;
        }
        return z;
      });
}

OpFoldResult mlir::strata::onnx::productOf(OpBuilder &b, Location loc,
                                           ArrayRef<OpFoldResult> sizes) {
  OpFoldResult product = b.getIndexAttr(1);
  for (OpFoldResult size : sizes) {
    product = mulSizes(b, loc, product, size);
  }
  return product;
}

Value mlir::strata::onnx::compareSizes(OpBuilder &b, Location loc,
                                       arith::CmpIPredicate pred,
                                       OpFoldResult lhs, OpFoldResult rhs) {
  std::optional<int64_t> l = getConstantIntValue(lhs);
  std::optional<int64_t> r = getConstantIntValue(rhs);
  if (l && r) {
    bool holds = arith::applyCmpPredicate(pred, APInt(64, *l, true),
                                          APInt(64, *r, true));
    return arith::ConstantIntOp::create(b, loc, holds, 1);
  }
  return arith::CmpIOp::create(b, loc, pred, indexValueOf(b, loc, lhs),
                               indexValueOf(b, loc, rhs));
}

OpFoldResult mlir::strata::onnx::selectSize(OpBuilder &b, Location loc,
                                            Value condition,
                                            OpFoldResult whenTrue,
                                            OpFoldResult whenFalse) {
  if (Attribute folded = foldHostScalar(condition)) {
    return cast<IntegerAttr>(folded).getValue().isZero() ? whenFalse : whenTrue;
  }
  std::optional<int64_t> t = getConstantIntValue(whenTrue);
  if (t && t == getConstantIntValue(whenFalse)) {
    return whenTrue;
  }
  if (whenTrue == whenFalse) {
    return whenTrue;
  }
  return arith::SelectOp::create(b, loc, condition,
                                 indexValueOf(b, loc, whenTrue),
                                 indexValueOf(b, loc, whenFalse))
      .getResult();
}

OpFoldResult mlir::strata::onnx::minSizes(OpBuilder &b, Location loc,
                                          OpFoldResult lhs, OpFoldResult rhs) {
  return sizeArith<arith::MinSIOp>(
      b, loc, lhs, rhs, [](int64_t x, int64_t y) -> std::optional<int64_t> {
        return std::min(x, y);
      });
}

OpFoldResult mlir::strata::onnx::maxSizes(OpBuilder &b, Location loc,
                                          OpFoldResult lhs, OpFoldResult rhs) {
  return sizeArith<arith::MaxSIOp>(
      b, loc, lhs, rhs, [](int64_t x, int64_t y) -> std::optional<int64_t> {
        return std::max(x, y);
      });
}

Value mlir::strata::onnx::isListedAxis(OpBuilder &b, Location loc,
                                       ArrayRef<OpFoldResult> axes, int64_t d) {
  Value listed = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (OpFoldResult axis : axes) {
    Value is =
        compareSizes(b, loc, arith::CmpIPredicate::eq, axis, b.getIndexAttr(d));
    if (matchPattern(is, m_Zero())) {
      continue;
    }
    if (matchPattern(is, m_One())) {
      return is;
    }
    listed = matchPattern(listed, m_Zero())
                 ? is
                 : arith::OrIOp::create(b, loc, listed, is).getResult();
  }
  return listed;
}

OpFoldResult mlir::strata::onnx::valueForAxis(OpBuilder &b, Location loc,
                                              ArrayRef<OpFoldResult> axes,
                                              ArrayRef<OpFoldResult> values,
                                              int64_t d,
                                              OpFoldResult otherwise) {
  OpFoldResult value = otherwise;
  for (auto [axis, entry] : llvm::zip(axes, values)) {
    value = selectSize(
        b, loc,
        compareSizes(b, loc, arith::CmpIPredicate::eq, axis, b.getIndexAttr(d)),
        entry, value);
  }
  return value;
}

Value mlir::strata::onnx::emptyTensor(OpBuilder &b, Location loc,
                                      ArrayRef<OpFoldResult> sizes,
                                      Type element) {
  return tensor::EmptyOp::create(b, loc, sizes, element);
}

Value mlir::strata::onnx::filledTo(OpBuilder &b, Location loc,
                                   ArrayRef<OpFoldResult> sizes,
                                   Value scalarValue) {
  Value empty = emptyTensor(b, loc, sizes, scalarValue.getType());
  return linalg::FillOp::create(b, loc, scalarValue, empty).getResult(0);
}

//===----------------------------------------------------------------------===//
// Host vectors
//===----------------------------------------------------------------------===//

Attribute mlir::strata::onnx::foldHostScalar(Value value) {
  // Shape arithmetic is a few ops deep; a bound keeps a long chain of
  // data-dependent scalars from costing more than it saves.
  std::function<Attribute(Value, int)> fold = [&](Value v,
                                                  int depth) -> Attribute {
    Attribute attr;
    if (matchPattern(v, m_Constant(&attr))) {
      return attr;
    }
    Operation *op = v.getDefiningOp();
    if (!op || depth > 16 || op->getNumRegions() != 0 ||
        !isa<arith::ArithDialect>(op->getDialect())) {
      return {};
    }
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands()) {
      Attribute folded = fold(operand, depth + 1);
      if (!folded) {
        return {};
      }
      operands.push_back(folded);
    }
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) ||
        results.size() != op->getNumResults()) {
      return {};
    }
    OpFoldResult result = results[cast<OpResult>(v).getResultNumber()];
    if (auto folded = dyn_cast<Attribute>(result)) {
      return folded;
    }
    return fold(cast<Value>(result), depth + 1);
  };
  return fold(value, 0);
}

OpFoldResult mlir::strata::onnx::simplifyHostScalar(Value value) {
  for (int depth = 0; depth < 16; ++depth) {
    if (Attribute folded = foldHostScalar(value)) {
      return folded;
    }
    Operation *op = value.getDefiningOp();
    if (!op || op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        !isa<arith::ArithDialect>(op->getDialect())) {
      return value;
    }
    // Folds with the operands that are constants (x * 1 is x).
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands()) {
      operands.push_back(foldHostScalar(operand));
    }
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) || results.size() != 1) {
      return value;
    }
    if (auto attr = dyn_cast<Attribute>(results[0])) {
      return attr;
    }
    value = cast<Value>(results[0]);
  }
  return value;
}

std::optional<int64_t> mlir::strata::onnx::dimIndexOf(Value size,
                                                      Value tensor) {
  while (Operation *op = size.getDefiningOp()) {
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
      size = op->getOperand(0);
      continue;
    }
    auto dim = dyn_cast<tensor::DimOp>(op);
    if (!dim || dim.getSource() != tensor) {
      return std::nullopt;
    }
    return dim.getConstantIndex();
  }
  return std::nullopt;
}

std::optional<SmallVector<OpFoldResult>>
mlir::strata::onnx::hostElements(Value value) {
  auto type =
      value ? dyn_cast<RankedTensorType>(value.getType()) : RankedTensorType();
  if (!type || type.getRank() > 1 || !type.hasStaticShape() ||
      type.getNumElements() > kHostElements ||
      !type.getElementType().isIntOrFloat()) {
    return std::nullopt;
  }
  DenseElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr))) {
    SmallVector<OpFoldResult> elements;
    for (Attribute element : attr.getValues<Attribute>()) {
      elements.push_back(element);
    }
    return elements;
  }
  if (auto fromElements = value.getDefiningOp<tensor::FromElementsOp>()) {
    SmallVector<OpFoldResult> elements;
    for (Value element : fromElements.getElements()) {
      elements.push_back(simplifyHostScalar(element));
    }
    return elements;
  }
  return std::nullopt;
}

bool mlir::strata::onnx::isComputedHostVector(Value value) {
  std::optional<SmallVector<OpFoldResult>> elements = hostElements(value);
  return elements && llvm::any_of(*elements, [](OpFoldResult element) {
           return isa<Value>(element);
         });
}

Value mlir::strata::onnx::hostScalar(OpBuilder &b, Location loc, Type type,
                                     OpFoldResult element) {
  if (auto value = dyn_cast<Value>(element)) {
    return value;
  }
  auto attr = cast<TypedAttr>(cast<Attribute>(element));
  if (attr.getType() != type) {
    if (auto integer = dyn_cast<IntegerAttr>(attr)) {
      return scalar(b, loc, type, static_cast<double>(integer.getInt()));
    }
    return scalar(b, loc, type, cast<FloatAttr>(attr).getValueAsDouble());
  }
  return arith::ConstantOp::create(b, loc, attr);
}

Value mlir::strata::onnx::hostVector(OpBuilder &b, Location loc,
                                     RankedTensorType type,
                                     ArrayRef<OpFoldResult> elements) {
  Type element = type.getElementType();
  if (llvm::all_of(elements,
                   [](OpFoldResult e) { return isa<Attribute>(e); })) {
    SmallVector<Attribute> attrs;
    for (OpFoldResult e : elements) {
      auto attr = cast<TypedAttr>(cast<Attribute>(e));
      if (attr.getType() != element) {
        // An index attribute (a size) stored in an i64 shape.
        if (auto integer = dyn_cast<IntegerAttr>(attr)) {
          attr = b.getIntegerAttr(element, integer.getInt());
        }
      }
      attrs.push_back(attr);
    }
    return constant(b, loc, DenseElementsAttr::get(type, attrs));
  }
  SmallVector<Value> scalars;
  for (OpFoldResult e : elements) {
    Value value = hostScalar(b, loc, element, e);
    if (value.getType().isIndex() && !element.isIndex()) {
      value = arith::IndexCastOp::create(b, loc, element, value);
    }
    scalars.push_back(value);
  }
  return tensor::FromElementsOp::create(b, loc, type, scalars);
}

//===----------------------------------------------------------------------===//
// Reshapes to dynamic sizes
//===----------------------------------------------------------------------===//

Value mlir::strata::onnx::viewAs(OpBuilder &b, Location loc, Value input,
                                 RankedTensorType resultType,
                                 ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(resultType.getShape());
  Value flat = input;
  // A dynamic result needs a dynamic flat size (expand_shape's rule).
  bool dynamicResult = !resultType.hasStaticShape();
  if (type.getRank() != 1) {
    int64_t count =
        type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic;
    auto flatType = RankedTensorType::get({count}, type.getElementType());
    if (type.getRank() == 0) {
      flat = tensor::ExpandShapeOp::create(b, loc, flatType, input,
                                           ArrayRef<ReassociationIndices>{});
    } else {
      ReassociationIndices all;
      for (int64_t i = 0; i < type.getRank(); ++i) {
        all.push_back(i);
      }
      flat = tensor::CollapseShapeOp::create(
          b, loc, flatType, input, ArrayRef<ReassociationIndices>{all});
    }
  }
  if (dynamicResult && type.hasStaticShape()) {
    flat = tensor::CastOp::create(
        b, loc,
        RankedTensorType::get({ShapedType::kDynamic}, type.getElementType()),
        flat);
  }
  if (shape.size() == 1) {
    return flat;
  }
  if (shape.empty()) {
    return tensor::CollapseShapeOp::create(b, loc, resultType, flat,
                                           ArrayRef<ReassociationIndices>{});
  }
  ReassociationIndices all;
  for (size_t i = 0; i < shape.size(); ++i) {
    all.push_back(i);
  }
  return tensor::ExpandShapeOp::create(
      b, loc, resultType, flat, ArrayRef<ReassociationIndices>{all}, sizes);
}

Value mlir::strata::onnx::reshapeTo(OpBuilder &b, Location loc, Value input,
                                    ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape = staticShapeOf(sizes);
  if (type.hasStaticShape() &&
      !llvm::is_contained(shape, ShapedType::kDynamic)) {
    return reshape(b, loc, input, shape);
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (type == resultType && type.getNumDynamicDims() <= 1) {
    // One dynamic dimension, in the same place, with the same static ones:
    // the element count decides it, and the node checked that.
    return input;
  }
  // Host vectors keep their elements (Unsqueeze of a Gather of a Shape).
  if (std::optional<SmallVector<OpFoldResult>> elements = hostElements(input);
      elements && resultType.hasStaticShape() && resultType.getRank() <= 1) {
    return hostVector(b, loc, resultType, *elements);
  }
  return viewAs(b, loc, input, resultType, sizes);
}

//===----------------------------------------------------------------------===//
// Node
//===----------------------------------------------------------------------===//

OpFoldResult Node::dim(unsigned i, int64_t d) {
  return dimOf(b, loc, in(i), d);
}

SmallVector<OpFoldResult> Node::dims(unsigned i) {
  return dimsOf(b, loc, in(i));
}

bool Node::allStatic() {
  for (unsigned i = 0; i < numInputs(); ++i) {
    if (has(i) && !type(i).hasStaticShape()) {
      return false;
    }
  }
  return true;
}

FailureOr<SmallVector<OpFoldResult>> Node::hostInts(unsigned i,
                                                    llvm::StringRef what) {
  RankedTensorType inputType = type(i);
  if (!isa<IntegerType>(inputType.getElementType()) ||
      inputType.getRank() > 1 || !inputType.hasStaticShape() ||
      inputType.getNumElements() > kHostElements) {
    return fail("input " + llvm::Twine(i) + " (" + what +
                ") must be an integer tensor of rank 0 or 1 with at most " +
                llvm::Twine(kHostElements) + " elements; it is " +
                typeText(inputType));
  }
  bool isUnsignedInput = isUnsigned(i);
  SmallVector<OpFoldResult> sizes;
  std::optional<SmallVector<OpFoldResult>> elements = hostElements(in(i));
  if (!elements) {
    // Data from a kernel (or a graph input): read back on the host.
    elements.emplace();
    for (int64_t e = 0; e < inputType.getNumElements(); ++e) {
      SmallVector<Value> at;
      if (inputType.getRank() == 1) {
        at.push_back(arith::ConstantIndexOp::create(b, loc, e));
      }
      elements->push_back(
          tensor::ExtractOp::create(b, loc, in(i), at).getResult());
    }
  }
  for (OpFoldResult element : *elements) {
    if (auto attr = dyn_cast<Attribute>(element)) {
      APInt value = cast<IntegerAttr>(attr).getValue();
      sizes.push_back(b.getIndexAttr(
          isUnsignedInput ? static_cast<int64_t>(value.getZExtValue())
                          : value.getSExtValue()));
      continue;
    }
    Value value = cast<Value>(element);
    if (value.getType().isIndex()) {
      sizes.push_back(value);
    } else if (isUnsignedInput) {
      sizes.push_back(
          arith::IndexCastUIOp::create(b, loc, b.getIndexType(), value)
              .getResult());
    } else {
      sizes.push_back(
          arith::IndexCastOp::create(b, loc, b.getIndexType(), value)
              .getResult());
    }
  }
  return sizes;
}

FailureOr<SmallVector<OpFoldResult>> Node::hostFloats(unsigned i,
                                                      llvm::StringRef what) {
  RankedTensorType inputType = type(i);
  if (!inputType.getElementType().isIntOrFloat() || inputType.getRank() > 1 ||
      !inputType.hasStaticShape() ||
      inputType.getNumElements() > kHostElements) {
    return fail("input " + llvm::Twine(i) + " (" + what +
                ") must be a tensor of rank 0 or 1 with at most " +
                llvm::Twine(kHostElements) + " elements; it is " +
                typeText(inputType));
  }
  Type element = inputType.getElementType();
  bool isUnsignedInput = isUnsigned(i);
  std::optional<SmallVector<OpFoldResult>> elements = hostElements(in(i));
  if (!elements) {
    elements.emplace();
    for (int64_t e = 0; e < inputType.getNumElements(); ++e) {
      SmallVector<Value> at;
      if (inputType.getRank() == 1) {
        at.push_back(arith::ConstantIndexOp::create(b, loc, e));
      }
      elements->push_back(
          tensor::ExtractOp::create(b, loc, in(i), at).getResult());
    }
  }
  SmallVector<OpFoldResult> numbers;
  for (OpFoldResult e : *elements) {
    if (auto integer =
            dyn_cast_if_present<IntegerAttr>(dyn_cast<Attribute>(e))) {
      APInt value = integer.getValue();
      numbers.push_back(b.getF64FloatAttr(
          isUnsignedInput ? static_cast<double>(value.getZExtValue())
                          : static_cast<double>(value.getSExtValue())));
    } else if (auto number =
                   dyn_cast_if_present<FloatAttr>(dyn_cast<Attribute>(e))) {
      numbers.push_back(b.getF64FloatAttr(number.getValueAsDouble()));
    } else {
      numbers.push_back(convertScalar(b, loc, cast<Value>(e), b.getF64Type(),
                                      isUnsignedInput && !isFloat(element)));
    }
  }
  return numbers;
}

FailureOr<SmallVector<OpFoldResult>> Node::hostAxes(unsigned i, int64_t rank,
                                                    llvm::StringRef what) {
  SmallVector<OpFoldResult> axes;
  if (constant(i)) {
    FailureOr<SmallVector<int64_t>> values = constInts(i, what);
    if (failed(values) || failed(normalizeAxes(*values, rank))) {
      return failure();
    }
    for (int64_t axis : *values) {
      axes.push_back(b.getIndexAttr(axis));
    }
    return axes;
  }
  FailureOr<SmallVector<OpFoldResult>> values = hostInts(i, what);
  if (failed(values)) {
    return failure();
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value rankValue = arith::ConstantIndexOp::create(b, loc, rank);
  for (auto [j, element] : llvm::enumerate(*values)) {
    Value axis = indexValueOf(b, loc, element);
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, axis, zero);
    Value normalized = arith::SelectOp::create(
        b, loc, negative, arith::AddIOp::create(b, loc, axis, rankValue), axis);
    // Unsigned: a negative axis below -rank is outside too.
    check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, normalized,
                                rankValue),
          "element " + llvm::Twine(j) + " of " + what + " is outside [-" +
              llvm::Twine(rank) + ", " + llvm::Twine(rank) + ") at run time");
    axes.push_back(simplifyHostScalar(normalized));
  }
  Value distinct = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (size_t j = 0; j < axes.size(); ++j) {
    for (size_t k = j + 1; k < axes.size(); ++k) {
      distinct = arith::AndIOp::create(
          b, loc, distinct,
          compareSizes(b, loc, arith::CmpIPredicate::ne, axes[j], axes[k]));
    }
  }
  check(distinct, what + " lists an axis twice at run time");
  return axes;
}

Value Node::hostScalarIn(unsigned i) {
  if (std::optional<SmallVector<OpFoldResult>> elements = hostElements(in(i));
      elements && elements->size() == 1) {
    return onnx::hostScalar(b, loc, elem(i), elements->front());
  }
  SmallVector<Value> at(rank(i), arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, in(i), at);
}

void Node::check(Value ok, const llvm::Twine &message) {
  if (matchPattern(ok, m_One())) {
    return;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "onnx node " << op.describe() << ": " << message;
  cf::AssertOp::create(b, loc, ok, b.getStringAttr(text));
}
